// The dashboard's route table: every page and form under /dashboard and the use case that answers it.
import { removeCookies, showCookies, storeCookies } from "./handlers/CookieHandlers.ts"
import {
  addDashboardDestination,
  removeDashboardDestination,
  showDestinations,
  testDashboardDestination
} from "./handlers/DestinationHandlers.ts"
import { confirmRevoke, confirmRotate, addKey, listKeys, revoke, rotate } from "./handlers/KeyHandlers.ts"
import { addMember, jobEvents, listJobs, rename, showProject, showSettings } from "./handlers/ProjectHandlers.ts"
import { addProject, listProjects, showLogin, signIn, signOut } from "./handlers/SessionHandlers.ts"
import { showUsage } from "./handlers/UsageHandlers.ts"
import { redeliver, showWebhooks } from "./handlers/WebhookHandlers.ts"
import {
  addSubscription,
  checkSubscriptionNow,
  pauseSubscription,
  removeSubscription,
  resumeSubscription,
  showSubscriptions
} from "./handlers/SubscriptionHandlers.ts"
import { lookUp, queue, queueBatch, showBatch, showDownload } from "./handlers/DownloadHandlers.ts"
import { cancel, jobFile, jobStream, retry, showJob, stop } from "./handlers/JobHandlers.ts"
import { share } from "./handlers/ShareHandlers.ts"
import { type DashboardRoute, route } from "./DashboardRoute.ts"

const P = "/dashboard/projects/:projectId"

export const dashboardRoutes = [
  route("GET", "/dashboard", listProjects),
  route("GET", "/dashboard/login", showLogin),
  route("POST", "/dashboard/login", signIn),
  route("POST", "/dashboard/logout", signOut),
  route("POST", "/dashboard/projects", addProject),
  route("GET", "/dashboard/share", share),
  route("GET", P, showProject),
  route("GET", `${P}/download`, showDownload),
  route("POST", `${P}/download`, lookUp),
  route("POST", `${P}/download/queue`, queue),
  route("POST", `${P}/download/batch`, queueBatch),
  route("GET", `${P}/download/jobs/:jobId`, showJob),
  route("GET", `${P}/download/batches/:batchId`, showBatch),
  route("GET", `${P}/keys`, listKeys),
  route("POST", `${P}/keys`, addKey),
  route("GET", `${P}/keys/:keyId/revoke`, confirmRevoke),
  route("POST", `${P}/keys/:keyId/revoke`, revoke),
  route("GET", `${P}/keys/:keyId/rotate`, confirmRotate),
  route("POST", `${P}/keys/:keyId/rotate`, rotate),
  route("GET", `${P}/jobs`, listJobs),
  route("GET", `${P}/jobs/events`, jobEvents, { json: true }),
  route("GET", `${P}/jobs/:jobId/events`, jobStream, { json: true }),
  route("GET", `${P}/jobs/:jobId/file`, jobFile),
  route("POST", `${P}/jobs/:jobId/cancel`, cancel),
  route("POST", `${P}/jobs/:jobId/retry`, retry),
  route("POST", `${P}/jobs/:jobId/stop`, stop),
  route("GET", `${P}/usage`, showUsage),
  route("GET", `${P}/webhooks`, showWebhooks),
  route("POST", `${P}/webhooks/:deliveryId/redeliver`, redeliver),
  route("GET", `${P}/settings`, showSettings),
  route("POST", `${P}/rename`, rename),
  route("POST", `${P}/members`, addMember),
  route("GET", `${P}/cookies`, showCookies),
  route("POST", `${P}/cookies`, storeCookies),
  route("POST", `${P}/cookies/:platform/remove`, removeCookies),
  route("GET", `${P}/destinations`, showDestinations),
  route("POST", `${P}/destinations`, addDashboardDestination),
  route("POST", `${P}/destinations/:destinationId/test`, testDashboardDestination),
  route("POST", `${P}/destinations/:destinationId/remove`, removeDashboardDestination),
  route("GET", `${P}/subscriptions`, showSubscriptions),
  route("POST", `${P}/subscriptions`, addSubscription),
  route("POST", `${P}/subscriptions/:subscriptionId/pause`, pauseSubscription),
  route("POST", `${P}/subscriptions/:subscriptionId/resume`, resumeSubscription),
  route("POST", `${P}/subscriptions/:subscriptionId/check`, checkSubscriptionNow),
  route("POST", `${P}/subscriptions/:subscriptionId/remove`, removeSubscription)
]

/** Every service some dashboard route needs. */
export type DashboardServices = (typeof dashboardRoutes)[number] extends DashboardRoute<infer R> ? R : never
