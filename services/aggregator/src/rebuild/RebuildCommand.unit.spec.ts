import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseRebuildCommand } from "./RebuildCommand.ts"

describe("projections rebuild command", () => {
  it.effect("rebuilds every read model into the configured backend when nothing is named", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* parseRebuildCommand(["projections", "rebuild"]), {
        projections: ["jobs", "media", "projects", "keys", "usage", "subscriptions"],
        to: null
      })
    })
  )

  it.effect("takes one read model and a backend, as separate or joined arguments", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* parseRebuildCommand(["projections", "rebuild", "--projection", "keys", "--to=mongo"]), {
        projections: ["keys"],
        to: "mongo"
      })
      assert.deepStrictEqual(yield* parseRebuildCommand(["projections", "rebuild", "--projection=projects"]), {
        projections: ["projects"],
        to: null
      })
    })
  )

  it.effect("refuses what it does not know with the usage", () =>
    Effect.gen(function* () {
      for (const argv of [
        ["projections", "rebuild", "--projection", "users"],
        ["projections", "rebuild", "--to", "redis"],
        ["projections", "rebuild", "--all"],
        ["keys", "rebuild"]
      ]) {
        const error = yield* Effect.flip(parseRebuildCommand(argv))
        assert.strictEqual(error._tag, "UsageError")
        assert.include(error.message, "projections rebuild [--projection jobs|media|projects|keys|usage|subscriptions] [--to kv|mongo]")
      }
    })
  )
})
