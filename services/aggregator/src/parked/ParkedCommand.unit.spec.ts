// Given argv, then the parked-message command it asks for, or the usage.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseParkedCommand } from "./ParkedCommand.ts"

describe("parked command", () => {
  it.effect("lists every parked message, or one consumer's", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* parseParkedCommand(["parked", "list"]), { _tag: "ListParked", consumer: null })
      assert.deepStrictEqual(yield* parseParkedCommand(["parked", "list", "--consumer=aggregator-usage"]), {
        _tag: "ListParked",
        consumer: "aggregator-usage"
      })
    })
  )

  it.effect("replays one by id or all (of a consumer), waiting 30 s unless told", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* parseParkedCommand(["parked", "replay", "42"]), {
        _tag: "ReplayParked",
        target: { _tag: "One", id: 42 },
        waitSeconds: 30
      })
      assert.deepStrictEqual(yield* parseParkedCommand(["parked", "replay", "--all", "--consumer", "aggregator-jobs", "--wait", "0"]), {
        _tag: "ReplayParked",
        target: { _tag: "All", consumer: "aggregator-jobs" },
        waitSeconds: 0
      })
      assert.deepStrictEqual(yield* parseParkedCommand(["parked", "drop", "--all"]), {
        _tag: "DropParked",
        target: { _tag: "All", consumer: null }
      })
    })
  )

  it.effect("refuses what it does not know with the usage", () =>
    Effect.gen(function* () {
      for (const argv of [
        ["parked"],
        ["parked", "replay"],
        ["parked", "replay", "x"],
        ["parked", "replay", "0"],
        ["parked", "drop", "1", "2"],
        ["parked", "drop", "1", "--consumer", "c"],
        ["parked", "list", "--all"],
        ["parked", "replay", "1", "--wait", "soon"]
      ]) {
        const refused = yield* Effect.flip(parseParkedCommand(argv))
        assert.include(refused.message, "usage:", argv.join(" "))
      }
    })
  )
})
