import { parseArgs, type ParseArgsConfig } from 'node:util'
import { pino } from 'pino'
import type { Config, Env } from '../config.js'
import type { Container } from '../container.js'
import { withDatabaseContext } from '../storage/database-context.js'

/** A usage error: printed without a stack, exit code 2. */
export class CliError extends Error {}

export interface Command {
  readonly help: string
  /**
   * Returns the exit code. `config` is read lazily so that `--help` works without a valid environment;
   * `overrides` are settings given as options (`serve --port 9000`), validated like the environment's.
   */
  run(args: string[], config: (overrides?: Env) => Config): Promise<number>
}

/**
 * The container of a CLI command: its logs go to stderr, stdout carries only the command's output.
 * Loaded on first use, so that `--help` and a usage error answer without loading the whole service.
 */
export async function createCliContainer(config: Config): Promise<Container> {
  const { createContainer } = await import('../container.js')
  return createContainer(config, { logger: pino({ level: config.logLevel }, pino.destination(2)) })
}

/**
 * Runs `work` with a migrated container, and always closes it. Only prepared, not started: a command
 * starts no background work and opens no Redis connection (constructing the container opens none),
 * unless `redis` asks for one: a write that other instances must hear of.
 */
export async function withContainer<T>(config: Config, work: (c: Container) => Promise<T>, options: { redis?: boolean } = {}): Promise<T> {
  const container = await withDatabaseContext(config, () => createCliContainer(config))
  try {
    await withDatabaseContext(config, () => container.prepare())
    if (options.redis) await container.connectRedis()
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
    // Node's own message for an unknown option suggests quoting it after '--': not what anyone meant.
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1]
    throw new CliError(`${unknown === undefined ? (error as Error).message : `unknown option ${unknown}`}\n\n${help}`)
  }
}

/** Prints rows under a header as aligned columns, two spaces apart, to stdout. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[]): void {
  const table = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)))
  process.stdout.write(
    table
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n',
  )
}
