// Port: the job read model the aggregator writes and the gateway reads. Adapters: NATS KV (embedded), MongoDB.
import { Context, type Effect, type Option } from "effect"
import type { JobView } from "../domain/job/JobView.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class JobReadModel extends Context.Service<JobReadModel, {
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
  remove(projectId: string, jobId: string): Effect.Effect<void, ReadModelError>
  /** The project's most recent jobs, newest first. */
  listByProject(projectId: string, limit: number): Effect.Effect<ReadonlyArray<JobView>, ReadModelError>
}>()("mds/readmodel/JobReadModel") {}
