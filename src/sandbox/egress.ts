import type net from 'node:net'
import { findProvider } from '@pydantic/genai-prices'

/**
 * The egress ledger: every host a run's sandbox reached through the proxy,
 * with its connections and bytes each way, so spend on a host the metering
 * gateway does not see (an add-on's own embedding or summarising model) is
 * on the record. A host is a model API when the price table knows it as a
 * provider's (`@pydantic/genai-prices`' API patterns: api.openai.com,
 * api.voyageai.com, …) or when a plain-HTTP request to it named a model
 * API's path (`/v1/embeddings`, `/v1/messages`, `:generateContent`, …).
 */

/** One host the run reached. */
export interface EgressEntry {
  readonly host: string
  readonly connections: number
  readonly bytesUp: number
  readonly bytesDown: number
  /** True when the host is a model or embedding API (see the module comment). */
  readonly modelApi: boolean
}

const MODEL_PATH =
  /\/(?:v\d+[a-z0-9]*\/)?(?:embeddings|embed|messages|chat\/completions|completions|responses|rerank)(?:[/?]|$)|:(?:generateContent|streamGenerateContent|embedContent|batchEmbedContents)(?:[/?]|$)/

/** Whether the price table knows `host` as a model provider's API. */
export function knownModelHost(host: string): boolean {
  return findProvider({ providerApiUrl: `https://${host.toLowerCase()}` }) !== undefined
}

/** Whether a request path is a model API's. */
export function modelApiPath(requestPath: string): boolean {
  return MODEL_PATH.test(requestPath)
}

interface Tally {
  connections: number
  bytesUp: number
  bytesDown: number
  modelApi: boolean
}

/** One run's ledger (the proxy feeds it). */
export class EgressLedger {
  readonly #hosts = new Map<string, Tally>()

  #tally(host: string): Tally {
    const name = host.toLowerCase()
    let tally = this.#hosts.get(name)
    if (tally === undefined) this.#hosts.set(name, (tally = { connections: 0, bytesUp: 0, bytesDown: 0, modelApi: knownModelHost(name) }))
    return tally
  }

  /** A connection to `host` on `socket` (the harness's side): its bytes are added when it closes. */
  connection(host: string, socket: net.Socket, requestPath?: string): void {
    const tally = this.#tally(host)
    tally.connections += 1
    if (requestPath !== undefined && modelApiPath(requestPath)) tally.modelApi = true
    socket.once('close', () => {
      tally.bytesUp += socket.bytesWritten
      tally.bytesDown += socket.bytesRead
    })
  }

  /** Every host so far, by name. */
  get entries(): EgressEntry[] {
    return [...this.#hosts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([host, tally]) => ({ host, ...tally }))
  }
}
