// Port: the project read model (name, members) the aggregator writes and the dashboard lists. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect, type Option } from "effect"
import type { ProjectView } from "../domain/account/AccountViews.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class ProjectReadModel extends Context.Service<
  ProjectReadModel,
  {
    get(projectId: string): Effect.Effect<Option.Option<ProjectView>, ReadModelError>
    /** Insert or replace the document of view.projectId, members included; one of a later lastSeq is never replaced. */
    put(view: ProjectView): Effect.Effect<void, ReadModelError>
    /** The projects the user is a member of, by name. */
    listByMember(userId: string): Effect.Effect<ReadonlyArray<ProjectView>, ReadModelError>
  }
>()("mds/readmodel/ProjectReadModel") {}

export const byProjectName = (a: ProjectView, b: ProjectView): number =>
  a.name.localeCompare(b.name) || (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : 0)
