// GET /dashboard/share: where the installed app's share target and the bookmarklet send a link, on to a Download tab.
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { Effect, Option } from "effect"
import { type DashboardInput, pageReply, redirectReply } from "../DashboardRoute.ts"
import { chooseProjectPage, continuePage } from "../pages/SharePages.ts"
import { DashboardAuth } from "../session/DashboardAuth.ts"
import { signInPath } from "../session/ReturnPath.ts"
import { sharedLinkOf } from "../SharedLink.ts"

/** The share address again, with only what it is read for (so it stays short and nothing else rides along). */
const shareAddress = (link: string, project: string | null) =>
  `/dashboard/share?${new URLSearchParams({ ...(project === null ? {} : { project }), url: link })}`

/**
 * The link goes to the Download tab of the project the bookmarklet names, or of the user's only project; with several,
 * the user chooses. It only fills the link in: looking it up and downloading stay the user's acts on that page.
 * Signed out, sign-in returns here; from another site, the session cookie (SameSite=Strict) is not sent, so the page
 * first continues to this same address from here.
 */
export const share = Effect.fn("share")(function* (input: DashboardInput) {
  const link = sharedLinkOf(input.query)
  const named = input.query?.["project"]
  const project = typeof named === "string" && /^prj_[a-z2-7]{24}$/.test(named) ? named : null
  const auth = yield* DashboardAuth
  const current = yield* auth.current(input.headers["cookie"])
  if (Option.isNone(current)) {
    const here = shareAddress(link, project)
    return input.headers["sec-fetch-site"] === "cross-site" ? pageReply(continuePage(here)) : redirectReply(signInPath(here))
  }
  const { session } = current.value
  const projects = yield* (yield* ProjectReadModel).listByMember(session.userId)
  const target = projects.find((p) => p.projectId === project) ?? (projects.length === 1 ? projects[0] : undefined)
  if (target !== undefined) {
    return redirectReply(`/dashboard/projects/${target.projectId}/download${link === "" ? "" : `?${new URLSearchParams({ url: link })}`}`)
  }
  return pageReply(chooseProjectPage({ viewer: { email: session.email, csrfToken: session.csrfToken }, projects, link }))
})
