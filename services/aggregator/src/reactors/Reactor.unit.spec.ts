// Given a reactor's rounds, when keys are woken or reconciled, then rounds run one at a time per key, over keys are
// passed by until they leave the listing, and a message's verdict is the soonest look-again.
import { assert, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Done, later, makeReactorRounds, Over, type RoundOutcome, verdictOf } from "./Reactor.ts"

/** Rounds that log their start and end, take 20 ms of the test clock, and answer what `outcomes` says for the key. */
const loggedRounds = (outcomes: Record<string, RoundOutcome | "fails"> = {}) =>
  Effect.gen(function* () {
    const log: Array<string> = []
    const rounds = yield* makeReactorRounds({
      name: "test",
      keyOf: (key: string) => key,
      round: (key: string, trigger: string) =>
        Effect.gen(function* () {
          log.push(`${key} ${trigger} start`)
          yield* Effect.sleep("20 millis")
          log.push(`${key} ${trigger} end`)
          const outcome = outcomes[key] ?? Done
          return outcome === "fails" ? yield* Effect.fail(`round of ${key} failed`) : outcome
        })
    })
    return { log, rounds }
  })

it.effect("runs one key's rounds one after the other, and different keys' side by side", () =>
  Effect.gen(function* () {
    const { log, rounds } = yield* loggedRounds()
    const all = yield* Effect.forkChild(
      Effect.all(
        [
          rounds.wake([{ key: "a", trigger: "first" }]),
          rounds.wake([{ key: "a", trigger: "second" }]),
          rounds.wake([{ key: "b", trigger: "first" }])
        ],
        { concurrency: "unbounded" }
      )
    )
    yield* TestClock.adjust("10 millis")
    // Both keys started at once; the key's second round waits for its first.
    assert.deepStrictEqual([...log].sort(), ["a first start", "b first start"])
    yield* TestClock.adjust("10 millis")
    yield* TestClock.adjust("20 millis")
    yield* Fiber.join(all)
    assert.isAbove(log.indexOf("a second start"), log.indexOf("a first end"))
    assert.strictEqual(log.at(-1), "a second end")
  })
)

it.effect("a reconcile passes an over key by until the key leaves the listing; an event about the key still wakes it", () =>
  Effect.gen(function* () {
    const { log, rounds } = yield* loggedRounds({ done: Over })
    const reconcile = (candidates: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.forkChild(rounds.reconcile(candidates, "reconcile"))
        yield* TestClock.adjust("100 millis")
        yield* Fiber.join(fiber)
      })
    yield* reconcile(["done", "open"])
    yield* reconcile(["done", "open"])
    assert.deepStrictEqual(
      log.filter((line) => line.endsWith("start")),
      ["done reconcile start", "open reconcile start", "open reconcile start"]
    )
    // A listing without it forgets it: listed again later (a new batch under the same name), it is looked at again.
    log.length = 0
    yield* reconcile(["open"])
    yield* reconcile(["done"])
    assert.deepStrictEqual(
      log.filter((line) => line.endsWith("start")),
      ["open reconcile start", "done reconcile start"]
    )
    // Found by a listing (a freed slot), an over key is passed by; named by its own event, it runs.
    log.length = 0
    const woken = yield* Effect.forkChild(
      Effect.all([rounds.wake([{ key: "done", trigger: "listed", unlessOver: true }]), rounds.wake([{ key: "done", trigger: "event" }])])
    )
    yield* TestClock.adjust("100 millis")
    yield* Fiber.join(woken)
    assert.deepStrictEqual(log, ["done event start", "done event end"])
  })
)

it.effect("a reconcile goes on past a key whose round fails", () =>
  Effect.gen(function* () {
    const { log, rounds } = yield* loggedRounds({ broken: "fails" })
    const fiber = yield* Effect.forkChild(rounds.reconcile(["broken", "next"], "reconcile"))
    yield* TestClock.adjust("100 millis")
    yield* Fiber.join(fiber)
    assert.deepStrictEqual(
      log.filter((line) => line.endsWith("end")),
      ["broken reconcile end", "next reconcile end"]
    )
  })
)

it.effect("a reconcile runs its keys one after the other unless told to run several side by side", () =>
  Effect.gen(function* () {
    const reconcile = (concurrency?: number) =>
      Effect.gen(function* () {
        const { log, rounds } = yield* loggedRounds()
        const fiber = yield* Effect.forkChild(rounds.reconcile(["a", "b", "c"], "reconcile", concurrency))
        yield* TestClock.adjust("10 millis")
        const started = log.filter((line) => line.endsWith("start"))
        yield* TestClock.adjust("100 millis")
        yield* Fiber.join(fiber)
        return started
      })
    assert.deepStrictEqual(yield* reconcile(), ["a reconcile start"])
    assert.deepStrictEqual(yield* reconcile(2), ["a reconcile start", "b reconcile start"])
  })
)

it("a message is acknowledged unless a round must look again; then it comes again at the soonest", () => {
  assert.deepStrictEqual(verdictOf([Done, Over]), { _tag: "Ack" })
  assert.deepStrictEqual(verdictOf([later(5_000, "full"), Done, later(1_200, "backoff")]), {
    _tag: "Nak",
    delayMs: 1_200,
    reason: "backoff"
  })
})
