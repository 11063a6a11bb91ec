// Given effects that finish at once, wait for I/O, or fail, then runFromMemory answers in the same tick or later.
import { Data, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { runFromMemory } from "./runFromMemory.ts"

class Refused extends Data.TaggedError("Refused")<{}> {}

const runtime = ManagedRuntime.make(Layer.empty)
afterAll(() => runtime.dispose())

describe("runFromMemory", () => {
  it("answers a synchronous effect in the calling tick (an Exit, not a promise)", () => {
    const exit = runFromMemory(runtime, Effect.succeed(42))
    expect(exit).not.toBeInstanceOf(Promise)
    expect(exit).toEqual(Exit.succeed(42))
  })

  it("keeps a synchronous failure as the effect's own error", () => {
    const exit = runFromMemory(runtime, Effect.fail(new Refused()))
    expect(exit).not.toBeInstanceOf(Promise)
    expect(Exit.isFailure(exit as Exit.Exit<never, Refused>)).toBe(true)
  })

  it("waits for an effect that turns asynchronous, running its steps once", async () => {
    let runs = 0
    const effect = Effect.sync(() => ++runs).pipe(
      Effect.andThen(Effect.promise(() => new Promise<number>((resolve) => setTimeout(() => resolve(7), 10)))),
      Effect.andThen((n) => Effect.succeed(n * 6))
    )
    const pending = runFromMemory(runtime, effect)
    expect(pending).toBeInstanceOf(Promise)
    expect(await pending).toEqual(Exit.succeed(42))
    expect(runs).toBe(1)
  })

  it("delivers a failure raised after the effect went asynchronous", async () => {
    const effect = Effect.sleep("5 millis").pipe(Effect.andThen(Effect.fail(new Refused())))
    const exit = await runFromMemory(runtime, effect)
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("Refused")
  })
})
