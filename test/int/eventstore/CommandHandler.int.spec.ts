// The aggregates' bound command handlers and read doors on a real nats-server: the admission limit holds with concurrent
// claims, each aggregate's deduplication rule makes a repeated command append nothing twice, and a door reads up to a
// sequence or only the last event.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { claimSlot, releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { AdmissionDecider, type AdmissionState } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { jobCommands, jobEventId } from "@mds/shared/application/job/JobCommands"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { admissionSubject, jobSubject, SUBSCRIPTIONS_STREAM, subscriptionSubject, webhookRedeliverSubject } from "@mds/shared/nats/Subjects"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import { jobHistory } from "@mds/shared/application/job/JobStates"
import { recordDeliveryAttempt } from "@mds/shared/application/webhook/DeliveryFacts"
import { currentWebhook, requestRedelivery, webhookCommands } from "@mds/shared/application/webhook/WebhookCommands"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import { WebhookRedeliveryRequested } from "@mds/shared/domain/webhook/WebhookEvent"
import { deliveryAttempt } from "../../support/WebhookAttempts.ts"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { TestNats } from "../support/TestNats.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

const claim = (projectId: string, jobId: string, now: number, known?: { state: AdmissionState; lastSeq: number }) =>
  claimSlot({ projectId, jobId, limit: 2, now, expiresAt: now + 3_600_000 }, known === undefined ? {} : { known })

const queueJob = (projectId: string, jobId: string, isNew = false) =>
  jobCommands(projectId, jobId)(
    {
      _tag: "QueueJob",
      jobId,
      projectId,
      platform: "vimeo",
      format: parseFormatId("video_best"),
      source: { url: "https://vimeo.com/1", mediaId: null },
      now: 1_000,
      lifetimeMs: 3_600_000
    },
    { isNew }
  )

/** The store, and the ids of a job no test has used yet. */
const freshJob = Effect.map(EventStore, (store) => ({ store, projectId: newId("prj"), jobId: newId("job") }))

/** Subscription commands read through SubscriptionStates: over an empty read model, that is the subject's replay. */
const SubscriptionStatesReplaying = SubscriptionStates.layer.pipe(Layer.provide(InMemorySubscriptionReadModel.layer))

const Store = SubscriptionStatesReplaying.pipe(Layer.provideMerge(JetStreamEventStore), Layer.provideMerge(TestNats))

layer(Store, { timeout: 60_000 })("handleCommand", (it) => {
  it.effect("10 concurrent claims with a limit of 2: exactly 2 succeed, 8 are over the limit", () =>
    Effect.gen(function* () {
      const projectId = newId("prj")
      const now = Date.now()
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 10 }, () => newId("job")),
        (jobId) => Effect.result(claim(projectId, jobId, now)),
        { concurrency: "unbounded" }
      )
      const succeeded = outcomes.filter((o) => o._tag === "Success")
      const failed = outcomes.flatMap((o) => (o._tag === "Failure" ? [o.failure._tag] : []))
      assert.strictEqual(succeeded.length, 2)
      assert.deepStrictEqual(failed, Array(8).fill("ConcurrencyLimitExceeded"))

      const store = yield* EventStore
      const stored = yield* store.readSubject(AdmissionEvent, admissionSubject(projectId))
      assert.strictEqual(stored.length, 2)
      assert.strictEqual(stored.at(-1)?.event.held.length, 2)

      // Another project has its own slots.
      const other = yield* Effect.result(claim(newId("prj"), newId("job"), now))
      assert.strictEqual(other._tag, "Success")
    })
  )

  it.effect("a rejected job command appends nothing and a replayed command is deduplicated", () =>
    Effect.gen(function* () {
      const { store, projectId, jobId } = yield* freshJob
      const subject = jobSubject(projectId, jobId)
      const queue = queueJob(projectId, jobId)
      const first = yield* queue
      assert.strictEqual(first.events.length, 1)
      const again = yield* Effect.flip(queue)
      assert.strictEqual(again._tag, "JobAlreadyExists")
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 1)
    })
  )

  it.effect("a stale known state never breaks the limit: an empty one conflicts and re-reads, a full one is re-read before refusing", () =>
    Effect.gen(function* () {
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
      yield* releaseSlot(projectB, releasedJob, "completed")
      const third = yield* claim(projectB, newId("job"), now, { state: second.state, lastSeq: second.lastSeq })
      assert.strictEqual(third.events.length, 1)
      const last = yield* store.readLast(AdmissionEvent, admissionSubject(projectB))
      assert.strictEqual(last._tag === "Some" ? last.value.event.held.length : -1, 2)
    })
  )

  it.effect("hydrate new appends to an empty subject without reading it; on an existing subject it decides on a fresh read", () =>
    Effect.gen(function* () {
      const { store, projectId, jobId } = yield* freshJob
      const subject = jobSubject(projectId, jobId)
      const first = yield* queueJob(projectId, jobId, true)
      assert.strictEqual(first.events.length, 1)
      // The same command again is the same message id: JetStream keeps one copy.
      yield* queueJob(projectId, jobId, true)
      assert.strictEqual((yield* store.readSubject(JobEvent, subject)).length, 1)
      // From the assumed empty state FailJob is rejected, so the subject is read and the job really fails.
      const failed = yield* jobCommands(projectId, jobId)(
        { _tag: "FailJob", jobId, error: { code: "internal_error", message: "x", retryable: false }, now: 2_000 },
        { isNew: true }
      )
      assert.deepStrictEqual(
        failed.events.map((e) => e._tag),
        ["JobFailed"]
      )
      assert.deepStrictEqual(
        (yield* store.readSubject(JobEvent, subject)).map((e) => e.event._tag),
        ["JobQueued", "JobFailed"]
      )
    })
  )

  it.effect("a slot is released once whoever releases it (worker, gateway, sweeper): one SlotReleased", () =>
    Effect.gen(function* () {
      const { store, projectId, jobId } = yield* freshJob
      yield* claim(projectId, jobId, Date.now())
      const first = yield* releaseSlot(projectId, jobId, "completed")
      const second = yield* releaseSlot(projectId, jobId, "expired")
      assert.deepStrictEqual(
        first.events.map((e) => e._tag),
        ["SlotReleased"]
      )
      assert.deepStrictEqual(second.events, [])
      const stored = yield* store.readSubject(AdmissionEvent, admissionSubject(projectId))
      assert.deepStrictEqual(
        stored.map((e) => e.event._tag),
        ["SlotClaimed", "SlotReleased"]
      )
    })
  )

  it.effect(
    "job events are named by the job's one rule: progress per percentage and instant (a retried try reports the same percentages again), a start per attempt and work message",
    () =>
      Effect.gen(function* () {
        const { store, projectId, jobId } = yield* freshJob
        const job = jobCommands(projectId, jobId)
        yield* queueJob(projectId, jobId, true)
        yield* job({ _tag: "StartJob", jobId, workerId: "w1", work: 7, now: 1_100 })
        yield* job({ _tag: "ReportProgress", jobId, percent: 10, now: 1_200 })
        yield* job({ _tag: "ReportProgress", jobId, percent: 20, now: 1_300 })
        // The same work message redelivered (its first worker died): the next attempt.
        yield* job({ _tag: "StartJob", jobId, workerId: "w2", work: 7, now: 1_400 })
        const stored = yield* store.readSubject(JobEvent, jobSubject(projectId, jobId))
        assert.deepStrictEqual(
          stored.map((e) => jobEventId(e.event)),
          [
            `JobQueued:${jobId}`,
            `JobStarted:${jobId}:1:7`,
            `JobProgressed:${jobId}:10:1200`,
            `JobProgressed:${jobId}:20:1300`,
            `JobStarted:${jobId}:2:7`
          ]
        )
      })
  )

  it.effect(
    "a decision's events are appended all or none: a check whose SubscriptionEntriesQueued the stream refuses records no SubscriptionChecked either",
    () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const { jsm } = yield* NatsClient
        const projectId = newId("prj")
        const subscriptionId = newId("sub")
        const subscription = subscriptionCommands(projectId, subscriptionId)
        yield* subscription({
          _tag: "CreateSubscription",
          subscriptionId,
          projectId,
          url: "https://feeds.example.com/a.xml",
          platform: "generic",
          format: parseFormatId("audio_mp3"),
          checkEveryMs: 3_600_000,
          filters: {},
          backfill: 0,
          now: 1_000
        })
        yield* subscription({
          _tag: "PlanCheck",
          subscriptionId,
          dueAt: 1_000,
          now: 1_400,
          mediaId: "med_playlist",
          platform: "generic",
          found: 8,
          fresh: 8,
          filtered: 0,
          seen: ["url https://a.example/0.mp3"],
          refreshed: [],
          candidates: [],
          requeue: [],
          limit: null,
          hold: null
        })
        // The stream takes the small SubscriptionChecked but refuses the large SubscriptionEntriesQueued after it.
        const sizeOf = (maxMsgSize: number) =>
          Effect.promise(() =>
            jsm.streams.update(SUBSCRIPTIONS_STREAM.name, { subjects: [...SUBSCRIPTIONS_STREAM.subjects], max_msg_size: maxMsgSize })
          )
        yield* sizeOf(2_048)
        const entries = Array.from({ length: 8 }, (_, i) => ({
          archiveKey: `url https://a.example/${i}.mp3`,
          entryId: `ent_${i}`,
          url: `https://a.example/${i}.mp3`,
          title: "t".repeat(400)
        }))
        const recorded = yield* Effect.result(
          subscription({
            _tag: "RecordCheck",
            subscriptionId,
            dueAt: 1_000,
            now: 1_500,
            queued: { batchId: "bat_check", entries },
            waiting: []
          })
        ).pipe(Effect.ensuring(sizeOf(-1)))
        // Refused for its size (the stream's limit), not for anything else about the batch.
        assert.include(recorded._tag === "Failure" ? String(recorded.failure) : "stored", "size")
        assert.deepStrictEqual(
          (yield* store.readSubject(SubscriptionEvent, subscriptionSubject(projectId, subscriptionId))).map((e) => e.event._tag),
          ["SubscriptionCreated", "SubscriptionCheckPlanned"]
        )
      })
  )

  it.effect("a read door stops at a sequence: the subscription and the job as they were right after one of their events", () =>
    Effect.gen(function* () {
      const projectId = newId("prj")
      const subscriptionId = newId("sub")
      const subscription = subscriptionCommands(projectId, subscriptionId)
      yield* subscription({
        _tag: "CreateSubscription",
        subscriptionId,
        projectId,
        url: "https://feeds.example.com/b.xml",
        platform: "generic",
        format: parseFormatId("audio_mp3"),
        checkEveryMs: 3_600_000,
        filters: {},
        backfill: 0,
        now: 1_000
      })
      const paused = yield* subscription({ _tag: "PauseSubscription", subscriptionId, now: 2_000 })
      const resumed = yield* subscription({ _tag: "ResumeSubscription", subscriptionId, now: 3_000 })
      const asPaused = yield* currentSubscription(projectId, subscriptionId, { uptoSeq: paused.lastSeq })
      assert.strictEqual(asPaused.state?.paused, true)
      assert.strictEqual(asPaused.lastSeq, paused.lastSeq)
      const now = yield* currentSubscription(projectId, subscriptionId)
      assert.strictEqual(now.state?.paused, false)
      assert.strictEqual(now.lastSeq, resumed.lastSeq)

      const { jobId } = yield* freshJob
      yield* queueJob(projectId, jobId, true)
      const started = yield* jobCommands(projectId, jobId)({ _tag: "StartJob", jobId, workerId: "w1", now: 1_100 })
      yield* jobCommands(projectId, jobId)({ _tag: "CancelJob", jobId, now: 1_200 })
      const steps = yield* jobHistory(projectId, jobId)
      assert.deepStrictEqual(
        steps.map((step) => jobStatus(step.state)),
        ["queued", "processing", "canceled"]
      )
      const upToStart = yield* jobHistory(projectId, jobId, started.lastSeq)
      assert.deepStrictEqual(
        upToStart.map((step) => step.seq),
        steps.slice(0, 2).map((step) => step.seq)
      )
    })
  )

  it.effect("a read door of an aggregate whose events carry its whole state reads its last event only", () =>
    Effect.gen(function* () {
      const projectId = newId("prj")
      const webhook = webhookCommands(projectId)
      yield* webhook({
        _tag: "ConfigureWebhook",
        projectId,
        webhookId: "whk_a",
        url: "https://a.example/hook",
        events: ["job.failed"],
        now: 1
      })
      const second = yield* webhook({
        _tag: "ConfigureWebhook",
        projectId,
        webhookId: "whk_b",
        url: "https://b.example/hook",
        events: ["job.completed"],
        now: 2
      })
      const current = yield* currentWebhook(projectId)
      assert.deepStrictEqual(current.state.endpoint, { webhookId: "whk_b", url: "https://b.example/hook", events: ["job.completed"] })
      assert.strictEqual(current.lastSeq, second.lastSeq)
    })
  )

  it.effect("a redelivery asked twice after the same attempt is one request, however long apart", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const projectId = newId("prj")
      yield* recordDeliveryAttempt(
        deliveryAttempt({ deliveryId: "dlv_twice", projectId, at: 500, nextAttemptAt: null, outcome: "failed", attempt: 3 })
      )
      const first = yield* requestRedelivery(projectId, "dlv_twice", 1_000)
      const second = yield* requestRedelivery(projectId, "dlv_twice", 600_000)
      assert.deepStrictEqual(second, first)
      const requests = yield* store.readSubject(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId))
      assert.deepStrictEqual(
        requests.map((stored) => stored.event.afterAttemptAt),
        [500]
      )
    })
  )
})
