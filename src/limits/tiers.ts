/** Access tiers of the spec. Public callers are counted per IP; Free and Pro per account. */
export const TIERS = ['public', 'free', 'pro'] as const;
export type Tier = (typeof TIERS)[number];

export interface WindowLimits {
  readonly hourly: number;
  readonly daily: number;
}

export type TierLimits = Readonly<Record<Tier, WindowLimits>>;

export const DEFAULT_TIER_LIMITS: TierLimits = Object.freeze({
  public: Object.freeze({ hourly: 100, daily: 500 }),
  free: Object.freeze({ hourly: 1000, daily: 10_000 }),
  pro: Object.freeze({ hourly: 10_000, daily: 100_000 }),
});

/** Maximum API keys per account (the spec's Limits table); the public tier has no keys. */
export const KEY_QUOTA: Readonly<Record<Exclude<Tier, 'public'>, number>> = Object.freeze({ free: 5, pro: 20 });

/**
 * Parses `public=100/500,free=1000/10000` (hourly/daily). Tiers left out keep the spec's values.
 * Throws with a message an operator can act on.
 */
export function parseRateLimits(raw: string): TierLimits {
  const limits: Record<Tier, WindowLimits> = { ...DEFAULT_TIER_LIMITS };
  const given = new Set<string>();
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const match = /^([a-z]+)\s*=\s*(\d+)\s*\/\s*(\d+)$/i.exec(entry);
    if (!match) throw new Error(`"${entry}" is not of the form tier=hourly/daily`);
    const [, name = '', hourlyText = '', dailyText = ''] = match;
    const tier = name.toLowerCase();
    if (!(TIERS as readonly string[]).includes(tier)) {
      throw new Error(`unknown tier "${name}" (tiers: ${TIERS.join(', ')})`);
    }
    // Two entries for one tier: one would be silently dropped.
    if (given.has(tier)) throw new Error(`the tier "${tier}" is given twice`);
    given.add(tier);
    const hourly = Number(hourlyText);
    const daily = Number(dailyText);
    if (hourly < 1 || daily < 1 || !Number.isSafeInteger(hourly) || !Number.isSafeInteger(daily)) {
      throw new Error(`"${entry}": limits must be positive whole numbers`);
    }
    if (daily < hourly) throw new Error(`"${entry}": the daily limit is below the hourly one`);
    limits[tier as Tier] = Object.freeze({ hourly, daily });
  }
  return Object.freeze(limits);
}
