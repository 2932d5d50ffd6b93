import { parseArgs, type ParseArgsConfig } from 'node:util'
import { pino } from 'pino'
import type { Config } from '../config.js'
import { createContainer, type Container } from '../container.js'

/** A usage error: printed without a stack, exit code 2. */
export class CliError extends Error {}

export interface Command {
  readonly help: string
  /** Returns the exit code. `config` is read lazily so that `--help` works without a valid environment. */
  run(args: string[], config: () => Config): Promise<number>
}

/** The container of a CLI command: its logs go to stderr, stdout carries only the command's output. */
export const createCliContainer = (config: Config) =>
  createContainer(config, { logger: pino({ level: config.logLevel }, pino.destination(2)) })

/** Runs `work` with a migrated container, and always closes it. */
export async function withContainer<T>(config: Config, work: (c: Container) => Promise<T>): Promise<T> {
  const container = createCliContainer(config)
  try {
    await container.start()
    return await work(container)
  } finally {
    await container.close()
  }
}

/** Every command's options: unknown ones are refused, with the command's usage. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, help: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${help}`)
  }
}
