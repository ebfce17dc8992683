import { createHash } from 'node:crypto';
import { glyphCodebook } from './glyph-code.js';
import { inventNames } from './names.js';
import { pick, seededRandom } from './prng.js';

export const LOCAL_WORLD_SCHEME = 'local-world:';

export interface WorldPerson {
  readonly index: number;
  /** The local recogniser's identity for this person (what Rekognition's `Id` is). */
  readonly celebrityId: string;
  readonly name: string;
  readonly code: number;
}

/** A face in a photo: who (or a stranger the recogniser does not know) and how legible it is drawn. */
export interface WorldFace {
  readonly personIndex: number | null;
  readonly code: number;
  /** `clear` faces are drawn large and sharp; `blurred` ones small, blurred and noisy. */
  readonly clarity: 'clear' | 'blurred';
  readonly x: number;
  readonly y: number;
  readonly size: number;
}

export interface WorldPhoto {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  readonly faces: readonly WorldFace[];
  /** What a web page says about the photo: who is shown, sometimes someone who is not. */
  readonly caption: string;
  /** Person indices the caption names (the text a search engine matches). */
  readonly mentions: readonly number[];
  readonly backgroundSeed: number;
}

export interface VisualWorld {
  readonly seed: number;
  readonly people: readonly WorldPerson[];
  readonly photos: readonly WorldPhoto[];
  /** The people the main component holds (indices); the rest form an island no one else reaches. */
  readonly mainSize: number;
}

export interface WorldOptions {
  readonly seed: number;
  /** Default 24 (20 in the main component, 4 on the island). */
  readonly people?: number;
}

const WIDTH = 480;
const HEIGHT = 320;
const ISLAND = 4;
const EVENTS = ['gala', 'premiere', 'awards night', 'film festival', 'charity dinner', 'press conference', 'book launch'];

/**
 * A small world of invented people and the photos they appear in, deterministic from the seed. The
 * main component is a random tree biased toward long branches plus a few shortcuts, so chains of 3 and
 * more hops exist; an island of 4 people is never photographed with anyone outside it (a no-path pair).
 * Each co-appearance has clear photos; some pairs appear together only blurred (not verifiable at 80 %);
 * captions sometimes name someone who is not in the picture; strangers unknown to the recogniser
 * appear in some photos. The ground truth is in the photos' pixels: see render-photo.ts.
 */
export function generateVisualWorld(options: WorldOptions): VisualWorld {
  const count = options.people ?? 24;
  if (count < ISLAND + 6) throw new Error('a visual world needs at least 10 people');
  const random = seededRandom(options.seed);
  const codes = glyphCodebook(count + 8, options.seed);
  const names = inventNames(count, random);
  const people: WorldPerson[] = names.map((name, index) => ({
    index,
    name,
    code: codes[index] ?? 0,
    celebrityId: `lw-${(options.seed >>> 0).toString(36)}-${index.toString(36)}`,
  }));
  const strangerCodes = codes.slice(count);
  const mainSize = count - ISLAND;

  const clearPairs: [number, number][] = [];
  const has = new Set<string>();
  const addPair = (a: number, b: number, into: [number, number][]): void => {
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    if (a === b || has.has(key)) return;
    has.add(key);
    into.push(a < b ? [a, b] : [b, a]);
  };
  for (let i = 1; i < mainSize; i += 1) addPair(i, Math.max(0, i - 1 - pick(random, 3)), clearPairs);
  for (let extra = 0; extra < Math.floor(mainSize / 5); extra += 1) addPair(pick(random, mainSize), pick(random, mainSize), clearPairs);
  for (let i = mainSize + 1; i < count; i += 1) addPair(i - 1, i, clearPairs);
  const weakPairs: [number, number][] = [];
  for (let extra = 0; extra < Math.floor(mainSize / 5); extra += 1) addPair(pick(random, mainSize), pick(random, mainSize), weakPairs);

  const photos: WorldPhoto[] = [];
  const newPhoto = (shown: readonly { person: number | null; clarity: WorldFace['clarity'] }[]): void => {
    const slot = WIDTH / Math.max(1, shown.length);
    const faces = shown.map((s, i): WorldFace => {
      const size = s.clarity === 'clear' ? 64 + pick(random, 24) : 30 + pick(random, 6);
      return {
        personIndex: s.person,
        code: s.person === null ? (strangerCodes[pick(random, strangerCodes.length)] ?? 0) : (people[s.person]?.code ?? 0),
        clarity: s.clarity,
        size,
        x: Math.round(i * slot + 6 + random() * Math.max(0, slot - size - 12)),
        y: Math.round(20 + random() * (HEIGHT - size - 40)),
      };
    });
    const shownPeople = shown.flatMap((s) => (s.person === null ? [] : [s.person]));
    const mentions = [...shownPeople];
    const component = shownPeople[0] !== undefined && shownPeople[0] >= mainSize ? [mainSize, count] : [0, mainSize];
    if (random() < 0.25) mentions.push(component[0]! + pick(random, component[1]! - component[0]!));
    const unique = [...new Set(mentions)];
    const event = EVENTS[pick(random, EVENTS.length)] ?? 'event';
    const caption = `${unique.map((p) => people[p]?.name ?? '').join(', ')} at the ${event}`;
    photos.push({ id: `p${String(photos.length).padStart(4, '0')}`, width: WIDTH, height: HEIGHT, faces, caption, mentions: unique, backgroundSeed: Math.floor(random() * 2 ** 31) });
  };

  for (const [a, b] of clearPairs) {
    const copies = 1 + pick(random, 2);
    for (let c = 0; c < copies; c += 1) {
      const shown: { person: number | null; clarity: WorldFace['clarity'] }[] = [
        { person: a, clarity: 'clear' },
        { person: b, clarity: 'clear' },
      ];
      if (random() < 0.3) shown.splice(pick(random, 3), 0, { person: null, clarity: 'clear' });
      newPhoto(random() < 0.5 ? shown : shown.reverse());
    }
    if (random() < 0.35) newPhoto([{ person: a, clarity: 'clear' }, { person: b, clarity: 'blurred' }]);
  }
  for (const [a, b] of weakPairs) newPhoto([{ person: a, clarity: random() < 0.5 ? 'clear' : 'blurred' }, { person: b, clarity: 'blurred' }]);
  for (const person of people) newPhoto(random() < 0.3 ? [{ person: person.index, clarity: 'clear' }, { person: null, clarity: 'clear' }] : [{ person: person.index, clarity: 'clear' }]);
  return { seed: options.seed, people, photos, mainSize };
}

/**
 * A world's fingerprint (16 hex digits of the sha256 of its JSON), printed by the visual bench beside
 * every figure: the same seed must always make the same world, or figures of two builds measure
 * different worlds (`visual-world.spec.ts` pins the bench's seeds).
 */
export function visualWorldHash(world: VisualWorld): string {
  return createHash('sha256').update(JSON.stringify(world)).digest('hex').slice(0, 16);
}

export function photoUrl(world: VisualWorld, photo: WorldPhoto): string {
  return `${LOCAL_WORLD_SCHEME}//world-${world.seed}/photos/${photo.id}.jpg`;
}

export function photoPageUrl(world: VisualWorld, photo: WorldPhoto): string {
  return `${LOCAL_WORLD_SCHEME}//world-${world.seed}/pages/${photo.id}`;
}

/** The photo a local-world URL names, or undefined when it names none of this world's. */
export function photoForUrl(world: VisualWorld, url: string): WorldPhoto | undefined {
  const match = /^local-world:\/\/world-(\d+)\/photos\/(p\d{4})\.jpg$/.exec(url);
  if (match === null || Number(match[1]) !== world.seed) return undefined;
  return world.photos.find((p) => p.id === match[2]);
}
