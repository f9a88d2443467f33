import { chmod, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { resolveAgentPackage } from '../../src/agents/packages.ts'

/**
 * A stand-in for a real model provider on 127.0.0.1: it records one header of
 * every request (the API key, as the real API would check it) and forwards the
 * request to `upstream` (a scripted model server), so a real agent CLI runs a
 * whole session through the metering gateway as it would against the provider.
 */
export interface StandInProvider {
  /** Its base URL. */
  readonly url: string
  /** The recorded header of each request, in order (`(none)` when absent). */
  readonly seen: readonly string[]
  close(): Promise<void>
}

/** Starts a stand-in provider recording `header` in front of `upstream`. */
export async function startStandInProvider(upstream: string, header: string): Promise<StandInProvider> {
  const target = new URL(upstream)
  const seen: string[] = []
  const server = http.createServer((request, response) => {
    seen.push(String(request.headers[header] ?? '(none)'))
    const forwarded = http.request({ host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers)
      reply.pipe(response)
    })
    request.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/**
 * An `agent.bin` for a held-key test: a shell script that writes the CLI's
 * environment to `seen` (what the CLI and everything it starts inherit) and
 * execs the pinned CLI of `kind`.
 */
export async function environmentRecordingBin(root: string, home: string, kind: 'codex' | 'gemini'): Promise<{ readonly bin: string; readonly seen: string }> {
  const seen = path.join(home, 'cli-env.txt')
  const bin = path.join(root, `${kind}-env.sh`)
  await writeFile(bin, `#!/bin/sh\n/usr/bin/env > '${seen}'\nexec '${process.execPath}' '${resolveAgentPackage(kind)}' "$@"\n`)
  await chmod(bin, 0o755)
  return { bin, seen }
}
