// The job's command handler over the in-memory event store: a command whose event another writer stored first under
// the same id answers the stored job, not its own decision.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { InMemoryEventStoreLayer } from "../../eventstore/InMemoryEventStore.ts"
import { parseFormatId } from "../../domain/media/FormatId.ts"
import { jobCommands } from "./JobCommands.ts"

const queue = (claim: string) =>
  ({
    _tag: "QueueJob",
    jobId: "job_a",
    projectId: "prj_a",
    platform: "generic",
    format: parseFormatId("video_best"),
    source: { url: "https://media.example/a.mp4", mediaId: null },
    now: 1_000,
    lifetimeMs: 3_600_000,
    claim
  }) as const

describe("jobCommands", () => {
  it.effect("two rounds queue one job, each with its own claim: the one stored first is what both are answered", () =>
    Effect.gen(function* () {
      const commands = jobCommands("prj_a", "job_a")
      // Both decide on a job that does not exist yet (as two rounds do that read before either wrote).
      const first = yield* commands(queue("claim-1"), { isNew: true })
      const second = yield* commands(queue("claim-2"), { isNew: true })
      assert.strictEqual(first.state?.claim, "claim-1")
      // The second's JobQueued has the id of the stored one: it was not stored, and the job is the first's.
      assert.strictEqual(second.state?.claim, "claim-1")
      assert.strictEqual(second.lastSeq, first.lastSeq)
    }).pipe(Effect.provide(InMemoryEventStoreLayer()))
  )
})
