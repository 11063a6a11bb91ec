// The aggregator: durable consumers on MDS_JOBS and MDS_MEDIA that fold events into the read models.
import type { JsMsg } from "@nats-io/jetstream"
import { Effect, Layer, Schema } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { ALL_JOBS_SUBJECT, JOBS_STREAM, MEDIA_STREAM } from "@mds/shared/eventstore/Subjects"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"
import { JobProjection } from "../jobs/JobProjection.ts"
import { MediaProjection } from "../media/MediaProjection.ts"

export interface AggregatorOptions {
  readonly jobsDurable: string
  readonly mediaDurable: string
  /** Jobs projected at once; events of one job always stay in order on one lane. */
  readonly lanes: number
  readonly ackWaitMs: number
  /** Delay before a message whose write failed is delivered again. */
  readonly retryDelayMs: number
}

export const defaultAggregatorOptions: AggregatorOptions = {
  jobsDurable: "aggregator-jobs",
  mediaDurable: "aggregator-media",
  lanes: 8,
  ackWaitMs: 30_000,
  retryDelayMs: 2_000
}

const decodeJobEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent))
const decodeMediaEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent))

const ack: Verdict = { _tag: "Ack" }

/** Undecodable -> Term (never blocks the stream); projection failure -> Nak with delay; else Ack after the write. */
export const verdictOf = <A>(
  msg: JsMsg,
  decode: (data: string) => Effect.Effect<A, unknown>,
  project: (event: A) => Effect.Effect<unknown, unknown>,
  retryDelayMs: number
): Effect.Effect<Verdict> =>
  Effect.gen(function*() {
    const decoded = yield* Effect.result(decode(msg.string()))
    if (decoded._tag === "Failure") return { _tag: "Term", reason: `undecodable: ${String(decoded.failure)}`.slice(0, 500) } as const
    return yield* project(decoded.success).pipe(
      Effect.as(ack),
      Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: retryDelayMs, reason: String(cause).slice(0, 500) }))
    )
  })

export const makeAggregator = (options: AggregatorOptions = defaultAggregatorOptions) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const jobs = yield* JobProjection
    const media = yield* MediaProjection

    const jobsConsumer: DurableConsumerOptions = {
      stream: JOBS_STREAM.name,
      durable: options.jobsDurable,
      filterSubject: ALL_JOBS_SUBJECT,
      lanes: options.lanes,
      ackWaitMs: options.ackWaitMs,
      handle: (msg) => verdictOf(msg, decodeJobEvent, () => jobs.catchUp(msg.subject, msg.seq), options.retryDelayMs)
    }
    const mediaConsumer: DurableConsumerOptions = {
      stream: MEDIA_STREAM.name,
      durable: options.mediaDurable,
      filterSubject: MEDIA_STREAM.subjects[0]!,
      lanes: options.lanes,
      ackWaitMs: options.ackWaitMs,
      handle: (msg) => verdictOf(msg, decodeMediaEvent, media.apply, options.retryDelayMs)
    }

    yield* ensureDurableConsumer(jobsConsumer)
    yield* ensureDurableConsumer(mediaConsumer)
    yield* Effect.forkScoped(runDurableConsumer(jobsConsumer))
    yield* Effect.forkScoped(runDurableConsumer(mediaConsumer))
    yield* Effect.logInfo("aggregator ready: consuming").pipe(
      Effect.annotateLogs({ consumers: [options.jobsDurable, options.mediaDurable].join(",") })
    )
  }))
