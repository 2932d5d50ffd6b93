/** A clock the test moves forward: the container reads "now" from it. */
export const movableClock = () => {
  let offset = 0
  return {
    now: () => Date.now() + offset,
    advance: (ms: number) => {
      offset += ms
    },
  }
}
