import net from 'node:net'

/**
 * The destination of one proxy request, parsed defensively: the request line
 * is written by the agent, so every part of it is checked before the proxy
 * hands it to `net.connect` or `http.request` (which throw synchronously on a
 * port out of range or a malformed host, and would take the harness down).
 */

/** A destination the proxy may open: a checked host and a port in 1–65535. */
export interface ProxyTarget {
  /** The host as a connection takes it: a DNS name (lower case), an IPv4 address, or an IPv6 address without brackets. */
  readonly host: string
  readonly port: number
}

/** Longest request target the proxy reads (an absolute URL or `host:port`). */
export const MAX_TARGET_LENGTH = 2048

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/

/** Whether `host` is a DNS name (RFC 1123 labels, at most 253 characters) or an IP address (IPv6 without brackets). */
export function validHost(host: string): boolean {
  if (net.isIP(host) !== 0) return true
  if (host.length === 0 || host.length > 253) return false
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  return name.split('.').every((label) => LABEL.test(label))
}

/** A decimal port in 1–65535, or null. */
export function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null
  const port = Number(text)
  return port >= 1 && port <= 65535 ? port : null
}

/** The target of `CONNECT host:port` (authority form; IPv6 in brackets), or null when any part is malformed. */
export function connectTarget(authority: string | undefined): ProxyTarget | null {
  if (authority === undefined || authority.length > MAX_TARGET_LENGTH) return null
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):([^:]+)$/.exec(authority)
  if (match === null) return null
  const bracketed = match[1]!.startsWith('[')
  const host = bracketed ? match[1]!.slice(1, -1) : match[1]!.toLowerCase()
  if (bracketed ? net.isIPv6(host) === false : !validHost(host) || net.isIPv6(host)) return null
  const port = parsePort(match[2]!)
  return port === null ? null : { host, port }
}

/** An absolute-form request's target (`http://host[:port]/path`), or null when it is not one or is malformed. */
export function absoluteTarget(url: string | undefined): (ProxyTarget & { readonly protocol: string; readonly path: string }) | null {
  if (url === undefined || url.length > MAX_TARGET_LENGTH || !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return null
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return null
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  if (!validHost(host)) return null
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : parsePort(parsed.port)
  if (port === null) return null
  return { protocol: parsed.protocol, host, port, path: `${parsed.pathname}${parsed.search}` }
}

/** A short, printable form of what the agent sent, for the record's examples (control characters escaped, length capped). */
export function printable(text: string, max = 120): string {
  const escaped = JSON.stringify(text).slice(1, -1)
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped
}
