// What a delivery needs, in memory but for the files: an event store, a filesystem artifact store under `root`, the
// job states, and the project's destinations opened through the real writers (every host resolving to loopback, only
// 127.0.0.1:1 allowed; a fixed destinations key).
import { ConfigProvider, Layer } from "effect"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { DeliveryDestinations } from "@mds/shared/application/job/DeliveryDestinations"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { DestinationWriters } from "@mds/shared/destinations/DestinationWriters"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { makeInMemoryEventStore } from "@mds/shared/eventstore/InMemoryEventStore"
import { join } from "node:path"

export const deliveryServices = (root: string) => {
  const store = makeInMemoryEventStore()
  const artifacts = makeFsArtifactStore(join(root, "store"), makeDownloadLinkSigner("secret", "http://127.0.0.1:1"))
  const base = Layer.mergeAll(Layer.succeed(EventStore, store.service), Layer.succeed(ArtifactStore, ArtifactStore.of(artifacts)))
  const writers = DestinationWriters.layer.pipe(
    Layer.provide(EgressPolicy.layerWith("127.0.0.1:1", async () => [{ address: "127.0.0.1", family: 4 as const }]))
  )
  return Layer.mergeAll(
    JobStates.fromEvents,
    DeliveryDestinations.layer.pipe(Layer.provideMerge(Layer.mergeAll(DestinationAccess.layer, writers)))
  ).pipe(
    Layer.provideMerge(base),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DESTINATIONS_ENCRYPTION_KEY: "ab".repeat(32) })))
  )
}
