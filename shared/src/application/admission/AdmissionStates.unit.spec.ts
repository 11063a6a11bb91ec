// Given admissions in flight, then one project's run one at a time while different projects' run side by side.
import { assert, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { AdmissionStates } from "./AdmissionStates.ts"

/** An admission that records when it starts and ends, and takes 20 ms of the test clock. */
const admission = (log: Array<string>, name: string) =>
  Effect.sync(() => log.push(`${name} start`)).pipe(
    Effect.andThen(Effect.sleep("20 millis")),
    Effect.andThen(Effect.sync(() => log.push(`${name} end`)))
  )

/** Admissions "a" for the first project and "b" for the second, arriving together; their log fills as they run. */
const admitBoth = (first: string, second: string) =>
  Effect.gen(function* () {
    const log: Array<string> = []
    const states = yield* AdmissionStates
    const both = yield* Effect.forkChild(
      Effect.all([states.oneAtATime(first, admission(log, "a")), states.oneAtATime(second, admission(log, "b"))], {
        concurrency: "unbounded"
      })
    )
    return { log, both }
  })

it.effect("runs one project's admissions one after the other, in arrival order", () =>
  Effect.gen(function* () {
    const { log, both } = yield* admitBoth("p1", "p1")
    yield* TestClock.adjust("20 millis")
    assert.deepStrictEqual(log, ["a start", "a end", "b start"])
    yield* TestClock.adjust("20 millis")
    yield* Fiber.join(both)
    assert.deepStrictEqual(log, ["a start", "a end", "b start", "b end"])
  }).pipe(Effect.provide(AdmissionStates.layer))
)

it.effect("runs different projects' admissions at the same time", () =>
  Effect.gen(function* () {
    const { log, both } = yield* admitBoth("p1", "p2")
    yield* TestClock.adjust("20 millis")
    yield* Fiber.join(both)
    assert.deepStrictEqual(log.slice(0, 2).sort(), ["a start", "b start"])
    assert.deepStrictEqual(log.slice(2).sort(), ["a end", "b end"])
  }).pipe(Effect.provide(AdmissionStates.layer))
)

it.effect("frees the project for the next admission when one fails", () =>
  Effect.gen(function* () {
    const log: Array<string> = []
    const states = yield* AdmissionStates
    const failing = states.oneAtATime("p1", Effect.fail("refused" as const)).pipe(Effect.ignore)
    const both = yield* Effect.forkChild(
      Effect.all([failing, states.oneAtATime("p1", admission(log, "next"))], { concurrency: "unbounded" })
    )
    yield* TestClock.adjust("20 millis")
    yield* Fiber.join(both)
    assert.deepStrictEqual(log, ["next start", "next end"])
  }).pipe(Effect.provide(AdmissionStates.layer))
)
