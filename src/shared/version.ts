import { readFileSync } from 'node:fs'

/**
 * Linkline's version, from package.json: the one number that `linkline --version`, the OpenAPI
 * document and the start log show. Read relative to this module, which runs from dist/src/shared/.
 */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
