// Headless Chromium for end-to-end tests: Debian's /usr/bin/chromium driven by playwright-core (never a downloaded browser).
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { REPO_ROOT } from "../support/ServiceStack.ts"

export const CHROMIUM_PATH = "/usr/bin/chromium"
export const ARTIFACTS_DIR = join(REPO_ROOT, "test", "artifacts")

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })

/** Saves a full-page screenshot under test/artifacts/ (git-ignored) and returns its path. */
export const screenshot = async (page: Page, name: string): Promise<string> => {
  await mkdir(ARTIFACTS_DIR, { recursive: true })
  const path = join(ARTIFACTS_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
