import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { SpecError } from '../../errors.ts'

/**
 * The installed `@pydantic/genai-prices` version. Its price table is bundled,
 * so the version names the prices: a token-priced agent records it beside its
 * CLI's version, and a resume refuses to mix costs from two price tables.
 */
export const genaiPricesVersion: string = readPackageVersion()

function readPackageVersion(): string {
  // The package's `exports` hide its package.json; walk up from its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@pydantic/genai-prices'))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === '@pydantic/genai-prices' && typeof pkg.version === 'string') return pkg.version
    } catch {
      // no package.json here: keep walking up
    }
    const parent = path.dirname(dir)
    if (parent === dir) throw new SpecError('cannot find the version of @pydantic/genai-prices: install it (`npm install`) so token-priced agents can be priced')
    dir = parent
  }
}

/** What a priced agent records as `versions.agent`: its CLI's version and the price table's. */
export function pricedAgentVersion(cliVersion: string): string {
  return `${cliVersion}; genai-prices ${genaiPricesVersion}`
}
