// Delivers job.completed / job.failed to each project's webhook endpoint: signed POSTs, retried with backoff through
// JetStream redelivery, every attempt appended to the project's delivery log; and sends one again when asked.
import { DeliverPolicy } from "@nats-io/jetstream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { answerJob } from "@mds/shared/api/JobResponse"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { endsJob } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { jobHistory } from "@mds/shared/application/job/JobStates"
import { WebhookRedeliveryRequested } from "@mds/shared/domain/webhook/WebhookEvent"
import { JOBS_STREAM, jobSubject, webhookRedeliverSubject, WEBHOOKS_STREAM } from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { Done, later, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { type Announcement, type AnnouncementTrigger, endNamed, type JobAt, jobEndSeed, react } from "./JobAnnouncements.ts"
import { deliveryIdOf, makeWebhookSender, type WebhookMessage } from "./WebhookSender.ts"

export const WEBHOOKS_DURABLE = "aggregator-webhooks"
export const WEBHOOK_REDELIVERIES_DURABLE = "aggregator-webhook-redeliveries"

const decodeRedelivery = Schema.decodeUnknownOption(Schema.fromJsonString(WebhookRedeliveryRequested))

interface JobKey {
  readonly projectId: string
  readonly jobId: string
}

/** What woke the dispatcher, with the message's delivery count: a delivery's retries are its message's redeliveries. */
type DispatchWake = AnnouncementTrigger & {
  /** The stored event that ended the job (its stream sequence), for JobEnded. */
  readonly seq?: number
  /** The delivery asked for again, for RedeliveryAsked. */
  readonly deliveryId?: string
  readonly attempt: number
}

/**
 * A reactor (`reactors/Reactor.ts`) with no reconcile: its wake-ups are durable consumers of the job events that end a
 * job and of redelivery requests, each message acknowledged only once its delivery succeeded or was given up, so
 * nothing is missed that a reconcile would make up for (and what the endpoint is sent depends on the event that woke
 * it: a reconcile could not tell a job's end announced from one not yet). The pure `react` is `JobAnnouncements.ts`.
 */
export const WebhookDispatcher = Layer.effectDiscard(
  Effect.gen(function* () {
    const artifacts = yield* ArtifactStore
    const sender = yield* makeWebhookSender
    const { settings } = sender

    /** The job's state right before and right after its event at `seq`. */
    const jobAt = Effect.fn("WebhookDispatcher.jobAt")(function* (projectId: string, jobId: string, seq: number) {
      const steps = yield* jobHistory(projectId, jobId, seq)
      return { before: steps.at(-2)?.state ?? null, after: steps.at(-1)?.state ?? null } satisfies JobAt
    })

    /** For a redelivery: the job as it ended under the delivery's id (an earlier try's end, after a retry, included). */
    const jobAsEnded = Effect.fn("WebhookDispatcher.jobAsEnded")(function* (
      projectId: string,
      jobId: string,
      type: Announcement["type"],
      deliveryId: string
    ) {
      const steps = yield* jobHistory(projectId, jobId)
      return {
        before: null,
        after: endNamed(
          jobId,
          steps.map((step) => step.state),
          type,
          deliveryId,
          (seed) => deliveryIdOf(projectId, seed, type)
        )
      } satisfies JobAt
    })

    /** The job's end as the webhook message its type announces, or null when the endpoint did not choose it. */
    const messageOf = Effect.fn("WebhookDispatcher.messageOf")(function* (
      projectId: string,
      jobId: string,
      state: JobView,
      announcement: Announcement
    ) {
      const { type, redeliveryOf } = announcement
      const endpoint = yield* sender.endpointFor(projectId, type)
      if (endpoint === null) return null
      const job = yield* answerJob(artifacts, state)
      const message: WebhookMessage = {
        projectId,
        type,
        deliveryId: deliveryIdOf(projectId, jobEndSeed(jobId, state), type),
        jobId,
        subscriptionId: null,
        happenedAt: state.completedAt ?? (yield* Clock.currentTimeMillis),
        data: { job },
        ...(redeliveryOf === undefined ? {} : { redeliveryOf })
      }
      return { endpoint, message }
    })

    const round = Effect.fn("WebhookDispatcher.round")(function* ({ projectId, jobId }: JobKey, wake: DispatchWake) {
      // A redelivery is of the job as it ended: its events outlive its lifetime only by the stream's retention.
      const at =
        wake._tag === "RedeliveryAsked"
          ? yield* jobAsEnded(projectId, jobId, wake.eventType, wake.deliveryId ?? "")
          : yield* jobAt(projectId, jobId, wake.seq ?? Number.MAX_SAFE_INTEGER)
      if (at.after === null) return Done
      for (const announcement of react(at, wake)) {
        const found = yield* messageOf(projectId, jobId, at.after, announcement)
        if (found === null) continue
        const verdict = yield* sender.send(found.endpoint, found.message, wake.attempt)
        if (verdict._tag === "Nak") return later(verdict.delayMs, verdict.reason)
      }
      return Done
    })

    const ackWaitMs = settings.timeoutMs + 30_000
    const jobEnds: WakeSource<JobKey, DispatchWake> = {
      stream: JOBS_STREAM.name,
      durable: WEBHOOKS_DURABLE,
      filterSubject: jobSubject.all,
      lanes: 8,
      ackWaitMs,
      // Created on a running system, it must not call endpoints for every job of the retained history.
      deliverPolicy: DeliverPolicy.New,
      wakes: (msg) => {
        const event = decodeJobEventJson(msg.string())
        // Only an event that ends a job is announced: most events (progress) are passed over before any read.
        if (Option.isNone(event) || !endsJob(event.value)) return Effect.succeed([])
        const key = jobSubject.parse(msg.subject)
        if (Option.isNone(key)) return Effect.as(stepOverSubject("job webhooks", msg.subject), [])
        const trigger: DispatchWake = { _tag: "JobEnded", seq: msg.seq, attempt: msg.info.deliveryCount }
        return Effect.succeed([{ key: key.value, trigger }])
      }
    }

    /**
     * A redelivery someone asked for: the same event (same delivery id) with the job as it ended then, retried as usual.
     * The end is found by its delivery id among the job's ends, so an earlier try's failure is sent as it was.
     */
    const redeliveries: WakeSource<JobKey, DispatchWake> = {
      stream: WEBHOOKS_STREAM.name,
      durable: WEBHOOK_REDELIVERIES_DURABLE,
      filterSubject: webhookRedeliverSubject.all,
      lanes: 4,
      ackWaitMs,
      deliverPolicy: DeliverPolicy.New,
      wakes: (msg) => {
        const requested = decodeRedelivery(msg.string())
        if (Option.isNone(requested)) return Effect.succeed([])
        const { projectId, jobId, eventType, deliveryId, afterAttemptAt } = requested.value
        const trigger: DispatchWake = {
          _tag: "RedeliveryAsked",
          eventType,
          afterAttemptAt,
          deliveryId,
          attempt: msg.info.deliveryCount
        }
        return Effect.succeed([{ key: { projectId, jobId }, trigger }])
      }
    }

    yield* runReactor({
      name: "job webhooks",
      keyOf: ({ projectId, jobId }: JobKey) => jobSubject(projectId, jobId),
      round,
      wakeSources: [jobEnds, redeliveries],
      // A failure to read or log is retried like a failed delivery, after a short pause.
      retryMs: 2_000
    })
  })
)
