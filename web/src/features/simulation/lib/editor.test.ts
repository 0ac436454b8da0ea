/** Tests of the editor's view from there helpers: the site and defaults from the location, the view as the server sends it. */
import { describe, expect, it } from 'vitest';

import { defaultView, locationSite, normaliseAdjustments, normaliseView } from './editor';

describe('the view from there of a location', () => {
  it('needs the panel size; passes at the nearest viewing distance, else 5 m', () => {
    expect(locationSite({ panel_width_cm: 400, panel_height_cm: 300, viewing_distance_min_m: 12 })).toEqual({ width_m: 4, height_m: 3, passing_m: 12 });
    expect(locationSite({ panel_width_cm: 120, panel_height_cm: 176, viewing_distance_min_m: null })).toEqual({ width_m: 1.2, height_m: 1.76, passing_m: 5 });
    expect(locationSite({ panel_width_cm: null, panel_height_cm: 300 })).toBeNull();
    expect(locationSite({ panel_width_cm: 400, panel_height_cm: 0 })).toBeNull();
    expect(locationSite(null)).toBeNull();
  });

  it('starts at the farthest viewing distance and the location’s speed, else 30 m and the audience’s speed', () => {
    expect(defaultView({ viewing_distance_max_m: 120, speed_kmh: 70, audience: 'road' })).toEqual({ distance_m: 120, speed_kmh: 70 });
    expect(defaultView({ viewing_distance_max_m: null, speed_kmh: null, audience: 'road' })).toEqual({ distance_m: 30, speed_kmh: 50 });
    expect(defaultView({ audience: 'pedestrian' })).toEqual({ distance_m: 30, speed_kmh: 5 });
    expect(defaultView(null)).toEqual({ distance_m: 30, speed_kmh: 5 });
    expect(defaultView({ viewing_distance_max_m: 5000 }).distance_m).toBe(1000);
  });
});

describe('normaliseView', () => {
  it('keeps a view within its ranges and drops a malformed one', () => {
    expect(normaliseView({ distance_m: 40, speed_kmh: 30 })).toEqual({ distance_m: 40, speed_kmh: 30 });
    expect(normaliseView({ distance_m: 0, speed_kmh: 900 })).toEqual({ distance_m: 1, speed_kmh: 200 });
    expect(normaliseView({ distance_m: 'far', speed_kmh: 3 })).toBeNull();
    expect(normaliseView(null)).toBeNull();
    expect(normaliseView(undefined)).toBeNull();
  });

  it('completes older adjustments with the view off', () => {
    expect(normaliseAdjustments({ brightness: 0.2 }).view).toBeNull();
    expect(normaliseAdjustments({ view: { distance_m: 60, speed_kmh: 50 } }).view).toEqual({ distance_m: 60, speed_kmh: 50 });
  });
});
