import { retainNextTickShape } from './next-tick-shape.ts';

// Imported for its effect by the process entry, first of all its imports.
retainNextTickShape();
