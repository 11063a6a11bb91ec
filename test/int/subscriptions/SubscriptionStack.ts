// The subscription specs' stack: a nats-server, the local media server and its feeds, a data directory, the extractor
// (pinned yt-dlp, egress to the media server only) and aggregators started on demand, all under one configuration.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { type SubscriptionEvent as SubscriptionEventType, SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { subscriptionSubject } from "@mds/shared/nats/Subjects"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import { FeedResolver } from "../../../services/aggregator/src/subscriptions/FeedResolver.ts"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { expect } from "vitest"
import { ExtractorLayer } from "../../../services/extractor/src/ExtractorLayer.ts"
import { YT_DLP } from "../../../services/extractor/test/ExtractorHarness.ts"
import { type MediaServer, startMediaServer } from "../../support/MediaServer.ts"
import { type NatsServer, startNatsServer } from "../../support/NatsServer.ts"

export interface SubscriptionStackOptions {
  /** The data directory's name prefix, in the system's temporary directory. */
  readonly name: string
  /** Settings every service of the stack gets besides NATS, the data directory and the secrets. */
  readonly env?: Record<string, string>
}

export const startSubscriptionStack = async (options: SubscriptionStackOptions) => {
  let nats: NatsServer | undefined
  let media: MediaServer | undefined
  let dataDir: string | undefined
  let extractor: ManagedRuntime.ManagedRuntime<unknown, never> | undefined

  /** Stops the extractor, the media server and nats-server, and removes the data directory (aggregators first: the spec's). */
  const close = async () => {
    await extractor?.dispose()
    await media?.close()
    await nats?.close()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  }

  try {
    nats = await startNatsServer()
    media = await startMediaServer()
    dataDir = await mkdtemp(join(tmpdir(), options.name))
    const natsUrl = nats.url
    const dataRoot = dataDir

    /** The services' settings: the stack's, then `env`; logs at Error only. */
    const withConfig = (env: Record<string, string>) =>
      Layer.mergeAll(
        ConfigProvider.layer(
          ConfigProvider.fromEnvRecord({
            NATS_URL: natsUrl,
            DATA_DIR: dataRoot,
            DOWNLOAD_URL_SECRET: "test-secret",
            API_KEY_PEPPER: "test-pepper",
            PUBLIC_BASE_URL: "http://files.test",
            ...options.env,
            ...env
          })
        ),
        Layer.succeed(References.MinimumLogLevel, "Error")
      )

    // A resolver only (WORKER_CONCURRENCY=0): these specs look at checks, claims and batches, not at the entries'
    // downloads (test/e2e/subscriptions.e2e.spec.ts downloads them), which would only cost each spec its CPU.
    extractor = ManagedRuntime.make(
      ExtractorLayer.pipe(
        Layer.provideMerge(withConfig({ YT_DLP_PATH: YT_DLP, EGRESS_ALLOW: media.hostPort, WORKER_CONCURRENCY: "0" })),
        Layer.orDie
      )
    ) as ManagedRuntime.ManagedRuntime<unknown, never>
    await extractor.runPromise(Effect.void)

    /**
     * An aggregator (AggregatorLayer, or a layer built on it), started. Only events and the reconcile at start wake its
     * subscription checks here (their tick is an hour): a check runs because it was due, not because time passed.
     * Disposing it is the caller's.
     */
    const startAggregator = async <A, E>(layer: Layer.Layer<A, E>) => {
      const runtime = ManagedRuntime.make(layer.pipe(Layer.provideMerge(withConfig({ SUBSCRIPTION_TICK_SECONDS: "3600" })), Layer.orDie))
      await runtime.runPromise(Effect.void)
      return runtime
    }

    return { nats, media, withConfig, startAggregator, close }
  } catch (error) {
    await close()
    throw error
  }
}

export type SubscriptionStack = Awaited<ReturnType<typeof startSubscriptionStack>>

/**
 * What a process that runs checks by hand needs beside the event store: the subscriptions' states (over an empty read
 * model: each read replays the subject) and the projects' quotas.
 */
export const CheckHostServices = Layer.mergeAll(
  SubscriptionStates.layer.pipe(Layer.provide(InMemorySubscriptionReadModel.layer)),
  ProjectQuotaReader.layer,
  FeedResolver.layer
)

/** What the specs that run checks by hand run them with. */
export type CheckHostNeeds = EventStore | NatsClient | Lifetimes | SubscriptionStates | ProjectQuotaReader | FeedResolver

/**
 * A process that runs checks by hand on the stack's NATS (its streams ensured), with the stack's configuration (so it
 * logs at Error only, like the stack's services).
 */
export const startCheckHost = async (stack: SubscriptionStack): Promise<ManagedRuntime.ManagedRuntime<CheckHostNeeds, never>> => {
  const host = ManagedRuntime.make(
    Layer.effectDiscard(ensureStreams).pipe(
      Layer.provideMerge(CheckHostServices),
      Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Lifetimes.layer)),
      Layer.provideMerge(NatsClient.layer),
      Layer.provideMerge(stack.withConfig({})),
      Layer.orDie
    )
  )
  await host.runPromise(Effect.void)
  return host
}

/** A subscription's events, oldest first. */
export const subscriptionEventsOf = (projectId: string, subscriptionId: string) =>
  Effect.gen(function* () {
    const stored = yield* (yield* EventStore).readSubject(SubscriptionEvent, subscriptionSubject(projectId, subscriptionId))
    return stored.map((item) => item.event)
  })

/** A subscription's check outcomes: checked or failed. */
export const outcomes = (events: ReadonlyArray<SubscriptionEventType>) =>
  events.filter((e) => e._tag === "SubscriptionChecked" || e._tag === "SubscriptionCheckFailed")

/** The counts of the subscription's last check, which must have succeeded. */
export const lastCheckOf = (events: ReadonlyArray<SubscriptionEventType>) => {
  const last = outcomes(events).at(-1)
  if (last?._tag !== "SubscriptionChecked") throw new Error(`last check did not succeed: ${JSON.stringify(last)}`)
  return { found: last.found, new: last.new, filtered: last.filtered, queued: last.queued }
}

/**
 * Titles of the entries queued by every check of the subscription, from the batches it created; each check's recorded
 * entries must be its batch's, no more and no fewer.
 */
export const queuedTitlesOf = (projectId: string, events: ReadonlyArray<SubscriptionEventType>) =>
  Effect.gen(function* () {
    const titles: Array<string> = []
    for (const event of events) {
      if (event._tag !== "SubscriptionEntriesQueued") continue
      const { state: batch } = yield* currentBatch(projectId, event.batchId)
      if (batch.status === "none") throw new Error(`batch ${event.batchId} not created`)
      expect(batch.entries.map((e) => e.entryId)).toEqual(event.entries.map((e) => e.entryId))
      titles.push(...batch.entries.map((e) => e.title))
    }
    return titles
  })
