// handleCommand under contention on a real nats-server: the admission limit holds with concurrent claims.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type AdmissionCommand, AdmissionDecider, type AdmissionState } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { JobDecider } from "@mds/shared/domain/job/JobDecider"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { handleCommand } from "@mds/shared/eventstore/CommandHandler"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { admissionSubject, jobSubject } from "@mds/shared/eventstore/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { TestNats } from "../support/TestNats.ts"

const claim = (projectId: string, jobId: string, now: number, known?: { state: AdmissionState; lastSeq: number }) =>
  handleCommand({
    decider: AdmissionDecider,
    codec: AdmissionEvent,
    subject: admissionSubject(projectId),
    hydrate: "last",
    command: { _tag: "ClaimSlot", projectId, jobId, limit: 2, now, expiresAt: now + 3_600_000 } satisfies AdmissionCommand,
    msgId: (event) => `${event._tag}-${event.jobId}-${event.at}`,
    ...(known === undefined ? {} : { known })
  })

const queueJob = (projectId: string, jobId: string, hydrate?: "new") =>
  handleCommand({
    decider: JobDecider,
    codec: JobEvent,
    subject: jobSubject(projectId, jobId),
    command: {
      _tag: "QueueJob",
      jobId,
      projectId,
      platform: "vimeo",
      format: "video_best",
      source: { url: "https://vimeo.com/1", mediaId: null },
      now: 1_000,
      lifetimeMs: 3_600_000
    },
    msgId: (event, i) => `${jobId}-${event._tag}-${i}`,
    ...(hydrate === undefined ? {} : { hydrate })
  })

layer(JetStreamEventStore.pipe(Layer.provideMerge(TestNats)), { timeout: 60_000 })("handleCommand", (it) => {
  it.effect("10 concurrent claims with a limit of 2: exactly 2 succeed, 8 are over the limit", () =>
    Effect.gen(function*() {
      const projectId = newId("prj")
      const now = Date.now()
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 10 }, () => newId("job")),
        (jobId) => Effect.result(claim(projectId, jobId, now)),
        { concurrency: "unbounded" }
      )
      const succeeded = outcomes.filter((o) => o._tag === "Success")
      const failed = outcomes.flatMap((o) => o._tag === "Failure" ? [o.failure._tag] : [])
      assert.strictEqual(succeeded.length, 2)
      assert.deepStrictEqual(failed, Array(8).fill("ConcurrencyLimitExceeded"))

      const store = yield* EventStore
      const stored = yield* store.readSubject(AdmissionEvent, admissionSubject(projectId))
      assert.strictEqual(stored.length, 2)
      assert.strictEqual(stored.at(-1)?.event.held.length, 2)

      // Another project has its own slots.
      const other = yield* Effect.result(claim(newId("prj"), newId("job"), now))
      assert.strictEqual(other._tag, "Success")
    }))

  it.effect("a rejected job command appends nothing and a replayed command is deduplicated", () =>
    Effect.gen(function*() {
      const store = yield* EventStore
      const projectId = newId("prj")
      const jobId = newId("job")
      const subject = jobSubject(projectId, jobId)
      const queue = handleCommand({
        decider: JobDecider,
        codec: JobEvent,
        subject,
        command: {
          _tag: "QueueJob",
          jobId,
          projectId,
          platform: "vimeo",
          format: "video_best",
          source: { url: "https://vimeo.com/1", mediaId: null },
          now: 1_000,
          lifetimeMs: 3_600_000
        },
        msgId: (event, i) => `${jobId}-${event._tag}-${i}`
      })
      const first = yield* queue
      assert.strictEqual(first.events.length, 1)
      const again = yield* Effect.flip(queue)
      assert.strictEqual(again._tag, "JobAlreadyExists")
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 1)
    }))

  it.effect("a stale known state never breaks the limit: an empty one conflicts and re-reads, a full one is re-read before refusing", () =>
    Effect.gen(function*() {
      const projectId = newId("prj")
      const now = Date.now()
      const empty = { state: AdmissionDecider.initialState(), lastSeq: 0 }
      const first = yield* claim(projectId, newId("job"), now, empty)
      yield* claim(projectId, newId("job"), now, { state: first.state, lastSeq: first.lastSeq })
      // Believing the project empty: the append conflicts, the re-read sees two slots, and the claim is refused.
      const overLimit = yield* Effect.flip(claim(projectId, newId("job"), now, empty))
      assert.strictEqual(overLimit._tag, "ConcurrencyLimitExceeded")

      // Believing it full while another writer freed a slot: the refusal is checked against a fresh read.
      const full = yield* claim(newId("prj"), newId("job"), now)
      const projectB = full.events[0]!.projectId
      const second = yield* claim(projectB, newId("job"), now)
      const store = yield* EventStore
      const releasedJob = full.events[0]!.jobId
      yield* handleCommand({
        decider: AdmissionDecider,
        codec: AdmissionEvent,
        subject: admissionSubject(projectB),
        hydrate: "last",
        command: { _tag: "ReleaseSlot", projectId: projectB, jobId: releasedJob, reason: "completed", now },
        msgId: (event) => `${event._tag}-${event.jobId}`
      })
      const third = yield* claim(projectB, newId("job"), now, { state: second.state, lastSeq: second.lastSeq })
      assert.strictEqual(third.events.length, 1)
      const last = yield* store.readLast(AdmissionEvent, admissionSubject(projectB))
      assert.strictEqual(last._tag === "Some" ? last.value.event.held.length : -1, 2)
    }))

  it.effect("hydrate new appends to an empty subject without reading it; on an existing subject it decides on a fresh read", () =>
    Effect.gen(function*() {
      const store = yield* EventStore
      const projectId = newId("prj")
      const jobId = newId("job")
      const subject = jobSubject(projectId, jobId)
      const first = yield* queueJob(projectId, jobId, "new")
      assert.strictEqual(first.events.length, 1)
      // The same command again is the same message id: JetStream keeps one copy.
      yield* queueJob(projectId, jobId, "new")
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 1)
      // From the assumed empty state FailJob is rejected, so the subject is read and the job really fails.
      const failed = yield* handleCommand({
        decider: JobDecider,
        codec: JobEvent,
        subject,
        hydrate: "new",
        command: { _tag: "FailJob", jobId, error: { code: "internal_error", message: "x", retryable: false }, now: 2_000 },
        msgId: (event) => `${jobId}-${event._tag}`
      })
      assert.deepStrictEqual(failed.events.map((e) => e._tag), ["JobFailed"])
      assert.deepStrictEqual((yield* store.readSubject(JobEvent, subject)).map((e) => e.event._tag), ["JobQueued", "JobFailed"])
    }))
})
