// How many HLS/DASH fragments a run of a platform fetches at once: the configured override, the platform table, the default.
import { Config, Context, Effect, Layer, Schema } from "effect"
import { CURATED_PLATFORMS, GENERIC_PLATFORM, type PlatformEntry } from "@mds/shared/domain/platform/PlatformTable"
import { platformCounts } from "../pacing/PlatformPacing.ts"

export interface FragmentSettings {
  /** For a platform neither the overrides nor the table name. */
  readonly byDefault: number
  /** PLATFORM_CONCURRENT_FRAGMENTS, by platform id. */
  readonly overrides: ReadonlyMap<string, number>
  readonly table: ReadonlyArray<PlatformEntry>
}

/** Pure: the override, else the table's entry, else the default. */
export const concurrentFragmentsFor = (settings: FragmentSettings, platform: string): number =>
  settings.overrides.get(platform) ?? settings.table.find((entry) => entry.id === platform)?.concurrentFragments ?? settings.byDefault

/**
 * 8 by measurement (docs/performance.md, "Fragmented media"): at 80 ms to the first byte and 2 MB/s per connection a
 * minute of 1 s fragments downloads several times faster than one at a time, and more connections than that gained
 * little on a 2-core machine while costing more of a platform's patience.
 */
export const DEFAULT_CONCURRENT_FRAGMENTS = 8

const AtLeastOne = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

export class FragmentConcurrency extends Context.Service<
  FragmentConcurrency,
  {
    forPlatform(platform: string): number
  }
>()("mds/extractor/FragmentConcurrency") {
  static readonly config = Config.all({
    byDefault: Config.schema(AtLeastOne, "CONCURRENT_FRAGMENTS").pipe(Config.withDefault(DEFAULT_CONCURRENT_FRAGMENTS)),
    overrides: platformCounts("PLATFORM_CONCURRENT_FRAGMENTS")
  })

  static readonly layer = Layer.effect(
    FragmentConcurrency,
    Effect.map(FragmentConcurrency.config, ({ byDefault, overrides }) => {
      const settings: FragmentSettings = { byDefault, overrides, table: [...CURATED_PLATFORMS, GENERIC_PLATFORM] }
      return FragmentConcurrency.of({ forPlatform: (platform) => concurrentFragmentsFor(settings, platform) })
    })
  )
}
