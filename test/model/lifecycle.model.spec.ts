// The lifecycle model under generated histories (fixed seeds): clients, the operator, workers, NATS, reactors and the
// clock interleaved write by write over the service's own steps; every invariant after every step and once settled.
import fc from "fast-check"
import { describe, it } from "vitest"
import { history } from "./Actions.ts"
import { runHistory } from "./Lifecycle.ts"

describe("the job lifecycle under generated interleavings", () => {
  it("keeps every invariant", () => {
    fc.assert(
      fc.property(history, (steps) => {
        runHistory(steps)
      }),
      { seed: 20261128, numRuns: 200 }
    )
  })
})
