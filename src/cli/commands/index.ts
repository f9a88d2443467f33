import type { Command } from 'commander'

/** Adds one command (and its --help) to the program. */
type Register = (program: Command) => void

/**
 * Every CLI command by name, in the order --help lists them, each loaded only when the program needs it: a call of
 * one command imports that command's modules alone, which saves about a second of start-up per call over loading
 * all of them (harvest, validate and the analysis pull in most of the harness).
 */
export const commands: Readonly<Record<string, () => Promise<Register>>> = {
  init: async () => (await import('./init.ts')).registerInit,
  validate: async () => (await import('./validate.ts')).registerValidate,
  harvest: async () => (await import('./harvest.ts')).registerHarvest,
  select: async () => (await import('./select.ts')).registerSelect,
  analyze: async () => (await import('./analyze.ts')).registerAnalyze,
  power: async () => (await import('./power.ts')).registerPower,
  plan: async () => (await import('./plan.ts')).registerPlan,
  publish: async () => (await import('./publish.ts')).registerPublish,
  'verify-archive': async () => (await import('./verify-archive.ts')).registerVerifyArchive,
  cache: async () => (await import('./cache.ts')).registerCache,
}
