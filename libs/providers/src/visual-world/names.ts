import { pick } from './prng.js';

const FIRST = ['Ada', 'Bruno', 'Celia', 'Dario', 'Elena', 'Felix', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Lars', 'Mira', 'Nils', 'Olga', 'Paulo', 'Quinn', 'Rosa', 'Soren', 'Talia', 'Udo', 'Vera', 'Wren', 'Xenia', 'Yusuf', 'Zora'];
const LAST_HEAD = ['Al', 'Bel', 'Cor', 'Dun', 'Esk', 'Fal', 'Gor', 'Hal', 'Ivo', 'Jar', 'Kel', 'Lun', 'Mor', 'Nor', 'Orv', 'Pel', 'Rav', 'Sol', 'Tor', 'Ven'];
const LAST_TAIL = ['bright', 'dane', 'field', 'grove', 'hart', 'holm', 'ley', 'mont', 'ridge', 'stone', 'vale', 'wick'];

/** `count` distinct invented full names ("Mira Kelgrove"), deterministic from the random source. */
export function inventNames(count: number, random: () => number): string[] {
  const names = new Set<string>();
  while (names.size < count) {
    const name = `${FIRST[pick(random, FIRST.length)]} ${LAST_HEAD[pick(random, LAST_HEAD.length)]}${LAST_TAIL[pick(random, LAST_TAIL.length)]}`;
    names.add(name);
  }
  return [...names];
}
