// Given admissions in flight, then one project's run one at a time while different projects' run side by side.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AdmissionStates } from "./AdmissionStates.ts"

const run = <A>(effect: Effect.Effect<A, never, AdmissionStates>) => Effect.runPromise(Effect.provide(effect, AdmissionStates.layer))

/** An admission that records when it starts and ends. */
const admission = (log: Array<string>, name: string) =>
  Effect.sync(() => log.push(`${name} start`)).pipe(
    Effect.andThen(Effect.sleep("20 millis")),
    Effect.andThen(Effect.sync(() => log.push(`${name} end`)))
  )

describe("AdmissionStates.oneAtATime", () => {
  it("runs one project's admissions one after the other, in arrival order", async () => {
    const log: Array<string> = []
    await run(Effect.gen(function*() {
      const states = yield* AdmissionStates
      yield* Effect.all([states.oneAtATime("p1", admission(log, "a")), states.oneAtATime("p1", admission(log, "b"))], { concurrency: "unbounded" })
    }))
    expect(log).toEqual(["a start", "a end", "b start", "b end"])
  })

  it("runs different projects' admissions at the same time", async () => {
    const log: Array<string> = []
    await run(Effect.gen(function*() {
      const states = yield* AdmissionStates
      yield* Effect.all([states.oneAtATime("p1", admission(log, "a")), states.oneAtATime("p2", admission(log, "b"))], { concurrency: "unbounded" })
    }))
    expect(log.slice(0, 2).sort()).toEqual(["a start", "b start"])
  })

  it("frees the project for the next admission when one fails", async () => {
    const log: Array<string> = []
    await run(Effect.gen(function*() {
      const states = yield* AdmissionStates
      const failing = states.oneAtATime("p1", Effect.fail("refused" as const)).pipe(Effect.ignore)
      yield* Effect.all([failing, states.oneAtATime("p1", admission(log, "next"))], { concurrency: "unbounded" })
    }))
    expect(log).toEqual(["next start", "next end"])
  })
})
