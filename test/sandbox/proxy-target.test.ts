import { describe, expect, test } from 'vitest'
import { absoluteTarget, connectTarget, parsePort, printable, validHost } from '../../src/sandbox/proxy-target.ts'

// What the proxy accepts as a destination: everything else is refused before a socket is opened.

describe('a CONNECT target', () => {
  test('is host:port with a DNS name, an IPv4 address or a bracketed IPv6 address', () => {
    expect(connectTarget('api.anthropic.com:443')).toEqual({ host: 'api.anthropic.com', port: 443 })
    expect(connectTarget('API.Example.COM:8080')).toEqual({ host: 'api.example.com', port: 8080 })
    expect(connectTarget('127.0.0.1:1')).toEqual({ host: '127.0.0.1', port: 1 })
    expect(connectTarget('[::1]:65535')).toEqual({ host: '::1', port: 65535 })
  })

  test('refuses a port outside 1–65535 or not plain decimal (net.connect would throw on it)', () => {
    for (const port of ['99999', '0', '65536', '-1', '+80', '0x50', '80.0', '', ' 80', '8O', '1e3', '000000443']) {
      expect(connectTarget(`example.com:${port}`), port).toBeNull()
    }
  })

  test('refuses a malformed host', () => {
    for (const authority of [
      ':443',
      'exa mple.com:443',
      '-bad.com:443',
      'a..b:443',
      `${'a'.repeat(64)}.com:443`,
      '[zz]:443',
      '::1:443',
      '[::1:443',
      'a:b:443',
      'x\u0000y:443',
      'host',
      undefined,
    ]) {
      expect(connectTarget(authority), String(authority)).toBeNull()
    }
    expect(connectTarget(`${'a.'.repeat(1100)}com:443`)).toBeNull()
  })
})

describe('an absolute-form target', () => {
  test('names protocol, host, port (default 80 or 443) and path', () => {
    expect(absoluteTarget('http://example.com/a?b=1')).toEqual({ protocol: 'http:', host: 'example.com', port: 80, path: '/a?b=1' })
    expect(absoluteTarget('https://[::1]:8443/')).toEqual({ protocol: 'https:', host: '::1', port: 8443, path: '/' })
  })

  test('refuses origin form, an unparsable URL and port 0', () => {
    for (const url of ['/', '*', 'example.com:80', 'http://', 'http://x:0/', 'http://[zz]/', 'http://a b/', undefined, `http://x/${'a'.repeat(3000)}`]) {
      expect(absoluteTarget(url), String(url)).toBeNull()
    }
  })
})

test('ports and hosts on their own', () => {
  expect(parsePort('443')).toBe(443)
  expect(parsePort('65536')).toBeNull()
  expect(validHost('localhost')).toBe(true)
  expect(validHost('a_b.internal')).toBe(true)
  expect(validHost('')).toBe(false)
})

test('an example in the record is printable and short, whatever the agent sent', () => {
  expect(printable('CONNECT a\r\nb')).toBe('CONNECT a\\r\\nb')
  expect(printable('x'.repeat(500)).length).toBeLessThanOrEqual(121)
})
