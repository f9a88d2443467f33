import type { Command } from 'commander'
import { registerHarvest } from './harvest.ts'
import { registerSelect } from './select.ts'
import { registerValidate } from './validate.ts'

/** Every CLI command; each adds itself (and its --help) to the program. */
export const commands: ReadonlyArray<(program: Command) => void> = [registerValidate, registerHarvest, registerSelect]
