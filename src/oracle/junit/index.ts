/** JUnit XML reports: parsing (pytest, node --test, Vitest, Jest), normalised ids, and what they say about a fix. */
export { parseJUnit, type ParseJUnitOptions } from './parse.ts'
export { normalizeIdPart, pytestNodeId, ID_SEPARATOR, NESTING_SEPARATOR } from './ids.ts'
export { classifyFix, evaluateListed, statusIn, type FixClassification, type ListedOutcome } from './outcome.ts'
export type { JUnitFormat, JUnitResults, TestStatus } from './results.ts'
