// Durable consumers on MDS_ACCOUNTS and MDS_KEY_USAGE that keep the project and key read models of the dashboard.
import type { JsMsg } from "@nats-io/jetstream"
import { Effect, Layer, Schema } from "effect"
import { KeyUsed } from "@mds/shared/domain/account/AccountEvent"
import { ACCOUNTS_STREAM, ALL_ACCOUNT_SUBJECTS, KEY_USAGE_STREAM } from "@mds/shared/eventstore/Subjects"
import { type AggregatorOptions, defaultAggregatorOptions, verdictOf } from "../projections/Aggregator.ts"
import { AccountProjection } from "./AccountProjection.ts"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer } from "../consumers/DurableConsumer.ts"

export interface AccountAggregatorOptions {
  readonly accountsDurable: string
  readonly keyUsageDurable: string
}

export const defaultAccountAggregatorOptions: AccountAggregatorOptions = {
  accountsDurable: "aggregator-accounts",
  keyUsageDurable: "aggregator-key-usage"
}

const decodeKeyUsed = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyUsed))
/** Any JSON object: the projection decodes by subject kind (project, key, user) itself. */
const decodeAccountMessage = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

export const makeAccountAggregator = (
  options: AccountAggregatorOptions = defaultAccountAggregatorOptions,
  base: AggregatorOptions = defaultAggregatorOptions
) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const projection = yield* AccountProjection
    const accounts: DurableConsumerOptions = {
      stream: ACCOUNTS_STREAM.name,
      durable: options.accountsDurable,
      filterSubject: ALL_ACCOUNT_SUBJECTS,
      lanes: base.lanes,
      ackWaitMs: base.ackWaitMs,
      handle: (msg: JsMsg) =>
        verdictOf(msg, decodeAccountMessage, () => projection.catchUp(msg.subject, msg.seq, msg.string()), base.retryDelayMs)
    }
    const keyUsage: DurableConsumerOptions = {
      stream: KEY_USAGE_STREAM.name,
      durable: options.keyUsageDurable,
      filterSubject: KEY_USAGE_STREAM.subjects[0]!,
      lanes: base.lanes,
      ackWaitMs: base.ackWaitMs,
      handle: (msg: JsMsg) => verdictOf(msg, decodeKeyUsed, projection.recordUse, base.retryDelayMs)
    }
    yield* ensureDurableConsumer(accounts)
    yield* ensureDurableConsumer(keyUsage)
    yield* Effect.forkScoped(runDurableConsumer(accounts))
    yield* Effect.forkScoped(runDurableConsumer(keyUsage))
    yield* Effect.logInfo("account projections consuming").pipe(
      Effect.annotateLogs({ consumers: [options.accountsDurable, options.keyUsageDurable].join(",") })
    )
  }))

/** Consumers plus projection; needs NatsClient and the project and key read models. */
export const accountAggregatorWith = (options: AccountAggregatorOptions = defaultAccountAggregatorOptions) =>
  makeAccountAggregator(options).pipe(Layer.provide(AccountProjection.layer))
