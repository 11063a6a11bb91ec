// The subscriptions in the lifecycle model (fixed seeds): clients subscribing, pausing, resuming, removing and checking
// now, feeds growing and failing, quotas changing, checks run by the real step with no lock (two runs of one check),
// workers, NATS and the clock interleaved write by write; every invariant (the subscriptions' among them) after every
// step, once settled and a lifetime later, as `runHistory` checks any history.
import fc from "fast-check"
import { describe, it } from "vitest"
import { subscriptionHistory } from "./Actions.ts"
import { runHistory } from "./Lifecycle.ts"

describe("subscriptions under generated interleavings", () => {
  it("never drop an entry, never download one twice, queue nothing once paused or removed, record every known outcome", () => {
    fc.assert(
      fc.property(subscriptionHistory, (steps) => {
        runHistory(steps)
      }),
      { seed: 20261128, numRuns: 60 }
    )
  })
})
