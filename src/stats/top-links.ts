/** Links kept per workspace and hour or day in `top_links`: the more, the lower `top_bound` and the rarer a full count of the top links. */
export const TOP_LINKS_KEPT = 32
/**
 * A period's busiest links (a workspace's hour or day): each kept link's count of the period (exact: it
 * is updated whenever the link's count changes) and a bound that no link left out exceeds. A link
 * offered and not kept, or dropped for a busier one, raises the bound to its count; its count only
 * changes when it is offered again. Only `offer` and `remove` change the counts (the least kept is cached).
 */
export class TopLinks {
  /**
   * The kept link a busier one would replace (the least count, the greatest id among equals), while the
   * kept set is full and unchanged: offers of links that do not get in (most, with many links) compare
   * with it instead of looking through every kept link.
   */
  #least: { id: string; count: number } | undefined

  readonly #counts: Map<string, number>

  constructor(
    counts: Map<string, number> = new Map(),
    public bound = 0,
  ) {
    this.#counts = counts
  }

  /** Each kept link's count of the period. */
  get counts(): ReadonlyMap<string, number> {
    return this.#counts
  }

  static parse(json: string | null, bound: number): TopLinks {
    return new TopLinks(new Map(json === null ? [] : (JSON.parse(json) as [string, number][])), Number(bound))
  }

  /** The link's count of the period is now `n`. */
  offer(linkId: string, n: number): void {
    if (this.#counts.has(linkId) || this.#counts.size < TOP_LINKS_KEPT) {
      this.#counts.set(linkId, n)
      this.#least = undefined
      return
    }
    const least = (this.#least ??= this.#findLeast())
    if (n > least.count) {
      this.#counts.delete(least.id)
      this.#counts.set(linkId, n)
      this.bound = Math.max(this.bound, least.count)
      this.#least = undefined
    } else this.bound = Math.max(this.bound, n)
  }

  /** The link no longer counts in the period (its statistics purged). */
  remove(linkId: string): void {
    if (this.#counts.delete(linkId)) this.#least = undefined
  }

  #findLeast(): { id: string; count: number } {
    let id = ''
    let count = Infinity
    for (const [other, n] of this.#counts) if (n < count || (n === count && other > id)) [id, count] = [other, n]
    return { id, count }
  }

  toJSON(): string | null {
    return this.#counts.size === 0 ? null : JSON.stringify([...this.#counts])
  }
}
