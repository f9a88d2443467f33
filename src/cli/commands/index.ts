import type { Command } from 'commander'
import { registerAnalyze } from './analyze.ts'
import { registerCache } from './cache.ts'
import { registerHarvest } from './harvest.ts'
import { registerInit } from './init.ts'
import { registerPlan } from './plan.ts'
import { registerPower } from './power.ts'
import { registerPublish } from './publish.ts'
import { registerSelect } from './select.ts'
import { registerValidate } from './validate.ts'
import { registerVerifyArchive } from './verify-archive.ts'

/** Every CLI command; each adds itself (and its --help) to the program. */
export const commands: ReadonlyArray<(program: Command) => void> = [
  registerInit,
  registerValidate,
  registerHarvest,
  registerSelect,
  registerAnalyze,
  registerPower,
  registerPlan,
  registerPublish,
  registerVerifyArchive,
  registerCache,
]
