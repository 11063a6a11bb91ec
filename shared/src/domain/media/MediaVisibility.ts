// Which project may be handed a resolved media or playlist: the one rule every path that hands out resolved media asks.
import type { MediaResolved } from "./MediaEvent.ts"

/**
 * Media and playlists resolved with a project's cookies (`projectId` set) are that project's alone: to any other
 * project they do not exist. Any other media is everyone's until it expires.
 */
export const isMediaVisibleTo = (media: Pick<MediaResolved, "projectId" | "expiresAt">, projectId: string, now: number): boolean =>
  media.expiresAt > now && (media.projectId === undefined || media.projectId === projectId)

/** What a resolve records as the media's owner: the asking project when its cookies went with the extraction. */
export const mediaOwnerOf = (projectId: string | null, cookiesUsed: boolean): { readonly projectId?: string } =>
  cookiesUsed && projectId !== null ? { projectId } : {}
