import v8 from 'node:v8'

/**
 * The serving isolate's young generation, capped from inside the process (docs/adr/0017).
 *
 * V8 sizes the young generation at the isolate's creation (on Node 24, two semi-spaces of up to 64 MB
 * each on a machine with memory to spare), and only the `node --max-semi-space-size` flag, read then,
 * changes that maximum. What V8 reads each time it grows the young generation is the growth factor:
 * the new size is the current one times `--semi-space-growth-factor`. So the cap is kept by setting
 * that factor to 1 once a doubling would pass it, looked at again every `everyMs` (V8 also shrinks the space when allocation slows down: the factor then
 * lets it grow back up to the cap, never past it).
 */
export const SERVING_SEMI_SPACE_MB = 16
const MB = 1024 * 1024

/** The semi-space size, in MB, of this isolate's young generation (its new space counts two). */
export function semiSpaceMb(): number {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
  return space === undefined ? 0 : space.space_size / 2 / MB
}

/**
 * The growth factor for a semi-space of `currentMb` under `capMb`: 2 (V8's own) while doubling stays
 * under the cap, 1 from there. Never more than 2: a factor that reached the cap in one step would take
 * it far past it at a second growth before the next look.
 */
export const growthFactorFor = (currentMb: number, capMb: number): number => (2 * currentMb <= capMb ? 2 : 1)

/** Keeps this isolate's semi-spaces at or under `capMb` (see above); the returned function stops watching. */
export function capYoungGeneration(capMb: number = SERVING_SEMI_SPACE_MB, everyMs = 100): () => void {
  let factor = 0
  const adjust = () => {
    const next = growthFactorFor(semiSpaceMb(), capMb)
    if (next === factor) return
    factor = next
    v8.setFlagsFromString(`--semi-space-growth-factor=${next}`)
  }
  adjust()
  const timer = setInterval(adjust, everyMs).unref()
  return () => clearInterval(timer)
}
