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

describe('a host name', () => {
  /** A name of `length` characters made of 63-character labels (the last one shorter), each a valid RFC 1123 label. */
  const nameOfLength = (length: number): string => {
    const labels: string[] = []
    let left = length
    while (left > 0) {
      const size = Math.min(63, labels.length === 0 ? left : left - 1)
      labels.push('a'.repeat(size))
      left -= size + (labels.length === 1 ? 0 : 1)
    }
    return labels.join('.')
  }

  test('is at most 253 characters', () => {
    expect(nameOfLength(253)).toHaveLength(253)
    expect(nameOfLength(254)).toHaveLength(254)
    expect(validHost(nameOfLength(253))).toBe(true)
    expect(validHost(nameOfLength(254))).toBe(false)
  })

  test('may end in the root dot, and only there', () => {
    expect(validHost('example.com.')).toBe(true)
    expect(validHost('.example.com')).toBe(false)
    expect(connectTarget('example.com.:443')).toEqual({ host: 'example.com.', port: 443 })
    // The dot is dropped, not the label before it: a bad last label stays bad.
    expect(validHost('a-.')).toBe(false)
    expect(validHost('a..')).toBe(false)
    // A name without the dot is checked whole: its last character is not dropped.
    expect(validHost('ab-')).toBe(false)
  })

  test('is made of labels of 1–63 letters, digits, hyphens or underscores, not starting or ending with a hyphen', () => {
    expect(validHost('a')).toBe(true)
    expect(validHost('ab')).toBe(true)
    expect(validHost('a-b.c_d.0')).toBe(true)
    expect(validHost('a'.repeat(63))).toBe(true)
    expect(validHost('a'.repeat(64))).toBe(false)
    expect(validHost('-a')).toBe(false)
    expect(validHost('a-')).toBe(false)
    expect(validHost('a b')).toBe(false)
  })

  test('may be an IP address, IPv6 without brackets', () => {
    expect(validHost('::1')).toBe(true)
    expect(validHost('fe80::1')).toBe(true)
    expect(validHost('10.0.0.1')).toBe(true)
    expect(validHost('[::1]')).toBe(false)
  })
})

describe('a CONNECT target, exactly', () => {
  test('has nothing after its port', () => {
    expect(connectTarget('example.com:443:1')).toBeNull()
    expect(connectTarget('example.com:443 ')).toBeNull()
  })

  test('in brackets is an IPv6 address and nothing else', () => {
    expect(connectTarget('[abc]:443')).toBeNull()
    expect(connectTarget('[1.2.3.4]:443')).toBeNull()
    expect(connectTarget('[example.com]:443')).toBeNull()
    expect(connectTarget('[::ffff:1.2.3.4]:443')).toEqual({ host: '::ffff:1.2.3.4', port: 443 })
  })
})

describe('an absolute-form target, exactly', () => {
  test('defaults to port 443 for https and 80 for anything else, and keeps an explicit port', () => {
    expect(absoluteTarget('https://example.com/p')).toEqual({ protocol: 'https:', host: 'example.com', port: 443, path: '/p' })
    expect(absoluteTarget('http://example.com:443/')).toEqual({ protocol: 'http:', host: 'example.com', port: 443, path: '/' })
    expect(absoluteTarget('ws://example.com/')).toEqual({ protocol: 'ws:', host: 'example.com', port: 80, path: '/' })
  })

  test('starts with its scheme and "//" (any case), with nothing before it', () => {
    expect(absoluteTarget('HTTP://Example.com/')).toEqual({ protocol: 'http:', host: 'example.com', port: 80, path: '/' })
    expect(absoluteTarget(' http://example.com/')).toBeNull()
    expect(absoluteTarget('http:example.com/')).toBeNull()
  })

  test('refuses a host the URL parser takes but a DNS name may not be', () => {
    for (const url of ['http://-bad.com/', 'http://a..b/', 'http://ab-/', `http://${'a'.repeat(64)}.com/`]) {
      expect(absoluteTarget(url), url).toBeNull()
    }
  })

  test('is at most 2048 characters long', () => {
    const prefix = 'http://x/'
    const longest = `${prefix}${'a'.repeat(2048 - prefix.length)}`
    expect(absoluteTarget(longest)).toEqual({ protocol: 'http:', host: 'x', port: 80, path: longest.slice('http://x'.length) })
    expect(absoluteTarget(`${longest}a`)).toBeNull()
  })
})

describe('an example in the record', () => {
  test('keeps a text of up to 120 characters as it is, and cuts a longer one to 120 and an ellipsis', () => {
    expect(printable('x'.repeat(120))).toBe('x'.repeat(120))
    expect(printable('x'.repeat(121))).toBe(`${'x'.repeat(120)}…`)
    expect(printable('abcdef', 3)).toBe('abc…')
    expect(printable('abc', 3)).toBe('abc')
  })

  test('escapes quotes, backslashes and control characters without adding quotes of its own', () => {
    expect(printable('say "hi"\\\u0000')).toBe('say \\"hi\\"\\\\\\u0000')
  })
})
