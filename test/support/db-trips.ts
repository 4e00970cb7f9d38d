import type { SqlDriver } from '../../src/core/store/driver.js';

/** Counts every statement the store sends through its driver (query, exec, lookup, transaction). */
export function countTrips(driver: SqlDriver, bump: () => void): void {
  for (const name of ['query', 'exec', 'lookup', 'transaction'] as const) {
    const orig = (driver[name] as (...a: unknown[]) => unknown).bind(driver);
    (driver as unknown as Record<string, unknown>)[name] = (...a: unknown[]) => {
      bump();
      return orig(...a);
    };
  }
}
