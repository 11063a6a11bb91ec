// Port: the job read model the aggregator writes and the gateway reads. Adapters: NATS KV (embedded), MongoDB.
import { Context, type Effect, type Option } from "effect"
import type { JobView } from "../domain/job/JobView.ts"
import type { ReadModelError } from "./ReadModelError.ts"

/** A stored document with the store's revision of it, for a compare-and-set write. */
export interface VersionedJobView {
  readonly view: JobView
  readonly revision: number
}

/** What a compare-and-set write did: stored (at this revision), or found the document changed by another writer. */
export type JobViewWrite = { readonly _tag: "Written"; readonly revision: number } | { readonly _tag: "Changed" }

export class JobReadModel extends Context.Service<
  JobReadModel,
  {
    get(projectId: string, jobId: string): Effect.Effect<Option.Option<JobView>, ReadModelError>
    /**
     * Insert or replace the document of (view.projectId, view.id), unless the stored one has a later lastSeq: two
     * writers folding the same job (the live aggregator and a rebuild) can then never move a document backwards.
     */
    put(view: JobView): Effect.Effect<void, ReadModelError>
    /**
     * put, from a writer that never stored this job's document (a rebuild writing a job the first time): a store that
     * can create it in one step does so, without reading first. One stored after all (another writer's) is handled as put.
     */
    putNew(view: JobView): Effect.Effect<void, ReadModelError>
    /** get, with the revision a later putAt compares against. */
    getVersioned(projectId: string, jobId: string): Effect.Effect<Option.Option<VersionedJobView>, ReadModelError>
    /**
     * Writes the document only if the stored one is still at `revision` (null: none stored), in one step: a writer that
     * keeps each job's document in memory (the job projector) writes without reading first, and reads again on Changed.
     */
    putAt(view: JobView, revision: number | null): Effect.Effect<JobViewWrite, ReadModelError>
    remove(projectId: string, jobId: string): Effect.Effect<void, ReadModelError>
    /** The project's most recent jobs, newest first. */
    listByProject(projectId: string, limit: number): Effect.Effect<ReadonlyArray<JobView>, ReadModelError>
  }
>()("mds/readmodel/JobReadModel") {}
