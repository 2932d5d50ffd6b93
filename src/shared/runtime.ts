/**
 * The Node.js releases Linkline runs on (package.json `engines`, ADR 0004). The SQLite driver needs
 * Node-API 10, which Node brings from 22.14: on an older release its native module crashes the
 * process (a segmentation fault on Node 20, at load or at the first query) with no message at all.
 */
export function unsupportedRuntime(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  if ((major === 22 && minor >= 14) || major >= 24) return undefined
  return `Node.js ${version} is not supported: run Linkline on Node.js 22 (22.14 or newer), 24 or 26`
}
