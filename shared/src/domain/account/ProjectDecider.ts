// The project aggregate: created once (optionally with its first member), renamed, and joined by dashboard users.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ProjectAlreadyExists, ProjectNotFound } from "../DomainErrors.ts"
import type { ProjectEvent, ProjectMember } from "./AccountEvent.ts"
import { DEFAULT_QUOTAS, type ProjectQuotas, withQuotaSet } from "./ProjectQuotas.ts"

export interface ProjectState {
  readonly exists: boolean
  readonly name: string | null
  readonly members: ReadonlyArray<ProjectMember>
  readonly quotas: ProjectQuotas
}

export type ProjectCommand =
  | {
      readonly _tag: "CreateProject"
      readonly projectId: string
      readonly name: string
      readonly owner: ProjectMember | null
      readonly now: number
    }
  | { readonly _tag: "RenameProject"; readonly projectId: string; readonly name: string; readonly now: number }
  | {
      readonly _tag: "AddProjectMember"
      readonly projectId: string
      readonly member: ProjectMember
      readonly now: number
    }
  | {
      readonly _tag: "SetProjectQuota"
      readonly projectId: string
      /** Only the quotas to change. */
      readonly quotas: Partial<ProjectQuotas>
      readonly now: number
    }

export type ProjectRejection = ProjectAlreadyExists | ProjectNotFound

const withMember = (members: ReadonlyArray<ProjectMember>, member: ProjectMember) =>
  members.some((m) => m.userId === member.userId) ? members : [...members, member]

export const evolveProject = (state: ProjectState, event: ProjectEvent): ProjectState => {
  switch (event._tag) {
    case "ProjectCreated":
      return { exists: true, name: event.name, members: event.owner === undefined ? [] : [event.owner], quotas: DEFAULT_QUOTAS }
    case "ProjectRenamed":
      return { ...state, name: event.name }
    case "ProjectMemberAdded":
      return { ...state, members: withMember(state.members, { userId: event.userId, email: event.email }) }
    case "ProjectQuotaSet":
      return { ...state, quotas: withQuotaSet(state.quotas, event) }
  }
}

export const isProjectMember = (state: ProjectState, userId: string): boolean =>
  state.exists && state.members.some((member) => member.userId === userId)

export const decideProject = (
  command: ProjectCommand,
  state: ProjectState
): Result.Result<ReadonlyArray<ProjectEvent>, ProjectRejection> => {
  switch (command._tag) {
    case "CreateProject":
      if (state.exists) return Result.fail(new ProjectAlreadyExists({ projectId: command.projectId }))
      return Result.succeed([
        {
          _tag: "ProjectCreated",
          v: 1,
          projectId: command.projectId,
          name: command.name,
          ...(command.owner === null ? {} : { owner: command.owner }),
          at: command.now
        }
      ])
    case "RenameProject":
      if (!state.exists) return Result.fail(new ProjectNotFound({ projectId: command.projectId }))
      if (state.name === command.name) return Result.succeed([])
      return Result.succeed([{ _tag: "ProjectRenamed", v: 1, projectId: command.projectId, name: command.name, at: command.now }])
    case "AddProjectMember":
      if (!state.exists) return Result.fail(new ProjectNotFound({ projectId: command.projectId }))
      if (state.members.some((m) => m.userId === command.member.userId)) return Result.succeed([])
      return Result.succeed([
        {
          _tag: "ProjectMemberAdded",
          v: 1,
          projectId: command.projectId,
          userId: command.member.userId,
          email: command.member.email,
          at: command.now
        }
      ])
    case "SetProjectQuota": {
      if (!state.exists) return Result.fail(new ProjectNotFound({ projectId: command.projectId }))
      const { jobsPerDay, bytesPerMonth, subscriptions } = command.quotas
      const changed = {
        ...(jobsPerDay === undefined || jobsPerDay === state.quotas.jobsPerDay ? {} : { jobsPerDay }),
        ...(bytesPerMonth === undefined || bytesPerMonth === state.quotas.bytesPerMonth ? {} : { bytesPerMonth }),
        ...(subscriptions === undefined || subscriptions === state.quotas.subscriptions ? {} : { subscriptions })
      }
      if (Object.keys(changed).length === 0) return Result.succeed([])
      return Result.succeed([{ _tag: "ProjectQuotaSet", v: 1, projectId: command.projectId, ...changed, at: command.now }])
    }
  }
}

export const ProjectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState, ProjectRejection> = {
  initialState: () => ({ exists: false, name: null, members: [], quotas: DEFAULT_QUOTAS }),
  evolve: evolveProject,
  decide: decideProject
}
