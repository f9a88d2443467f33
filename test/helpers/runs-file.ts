import { writeFile } from 'node:fs/promises'
import { anchorOf, writeAnchor } from '../../src/runs/anchor.ts'
import { formatRuns } from '../../src/runs/store.ts'
import { lineSha256 } from '../../src/runs/chain.ts'

/**
 * Writes a whole runs file as the recorder would have left it after appending
 * these records in this order: the chained lines and the anchor beside them.
 * Tests use it to set up recorded runs, including ones a real run could not make.
 */
export async function writeRecordedRuns(file: string, records: readonly object[]): Promise<void> {
  const text = formatRuns(records)
  await writeFile(file, text)
  const lines = text.split('\n').slice(0, -1)
  writeAnchor(file, anchorOf({ lines: lines.length, sha256: lines.length === 0 ? lineSha256('') : lineSha256(lines.at(-1)!), bytes: Buffer.byteLength(text) }))
}
