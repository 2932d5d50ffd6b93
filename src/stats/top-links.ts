/** Links kept per workspace and hour or day in `top_links`: the more, the lower `top_bound` and the rarer a full count of the top links. */
export const TOP_LINKS_KEPT = 32
/**
 * A period's busiest links (a workspace's hour or day): each kept link's count of the period (exact: it
 * is updated whenever the link's count changes) and a bound that no link left out exceeds. A link
 * offered and not kept, or dropped for a busier one, raises the bound to its count; its count only
 * changes when it is offered again.
 */
export class TopLinks {
  constructor(
    readonly counts: Map<string, number> = new Map(),
    public bound = 0,
  ) {}

  static parse(json: string | null, bound: number): TopLinks {
    return new TopLinks(new Map(json === null ? [] : (JSON.parse(json) as [string, number][])), Number(bound))
  }

  /** The link's count of the period is now `n`. */
  offer(linkId: string, n: number): void {
    if (this.counts.has(linkId) || this.counts.size < TOP_LINKS_KEPT) {
      this.counts.set(linkId, n)
      return
    }
    let least: string | undefined
    let leastCount = Infinity
    for (const [id, count] of this.counts) {
      if (count < leastCount || (count === leastCount && id > (least as string))) [least, leastCount] = [id, count]
    }
    if (n > leastCount) {
      this.counts.delete(least as string)
      this.counts.set(linkId, n)
      this.bound = Math.max(this.bound, leastCount)
    } else this.bound = Math.max(this.bound, n)
  }

  toJSON(): string | null {
    return this.counts.size === 0 ? null : JSON.stringify([...this.counts])
  }
}
