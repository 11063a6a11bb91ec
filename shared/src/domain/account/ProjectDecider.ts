// The project aggregate: created once, by name.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ProjectAlreadyExists } from "../DomainErrors.ts"
import type { ProjectEvent } from "./AccountEvent.ts"

export interface ProjectState {
  readonly exists: boolean
  readonly name: string | null
}

export type ProjectCommand = {
  readonly _tag: "CreateProject"
  readonly projectId: string
  readonly name: string
  readonly now: number
}

export const ProjectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState, ProjectAlreadyExists> = {
  initialState: () => ({ exists: false, name: null }),
  evolve: (_state, event) => ({ exists: true, name: event.name }),
  decide: (command, state) =>
    state.exists
      ? Result.fail(new ProjectAlreadyExists({ projectId: command.projectId }))
      : Result.succeed([{ _tag: "ProjectCreated", v: 1, projectId: command.projectId, name: command.name, at: command.now }])
}
