// The source of web/vendor/codemirror.min.js: CodeMirror 6 with YAML highlighting, bundled into one
// classic script by vendor-codemirror.mjs (npm run vendor) that sets window.GpueconEditor.
// The page (web/app.js) uses only what this file exports:
//   GpueconEditor.create(parent, text, onChange) -> {get(), set(text), mark(line, column), view}
// mark(line, column) highlights one line (its number in the gutter, class "err", and the line,
// class "cm-err-line"), puts the cursor at the column and scrolls it into view; mark(0) clears.
// The mark follows its line through edits above it, and is cleared by a set().
// The editor lives in a shadow root of `parent`: there CodeMirror's styles go into a constructed
// stylesheet (adoptedStyleSheets), which the page's Content-Security-Policy (style-src 'self', no
// inline styles) allows, where in the document it would add a <style> element the policy refuses.
// The page's CSS does not reach inside, so the look (height, colours of the mark) is set here.
import {EditorState, StateEffect, StateField, RangeSet} from '@codemirror/state';
import {EditorView, Decoration, GutterMarker, gutterLineClass, keymap, lineNumbers,
  highlightActiveLine, highlightActiveLineGutter, drawSelection} from '@codemirror/view';
import {defaultKeymap, history, historyKeymap, indentWithTab} from '@codemirror/commands';
import {syntaxHighlighting, defaultHighlightStyle, indentUnit, bracketMatching} from '@codemirror/language';
import {yaml} from '@codemirror/lang-yaml';

const setMark = StateEffect.define();
const errLine = Decoration.line({class: 'cm-err-line'});
const errGutter = new (class extends GutterMarker { get elementClass() { return 'err'; } })();

// the marked line's start, mapped through every change; null when nothing is marked
const markField = StateField.define({
  create: () => null,
  update(pos, tr) {
    for (const e of tr.effects) if (e.is(setMark)) return e.value;
    return pos === null || !tr.docChanged ? pos : tr.changes.mapPos(pos, -1);
  },
  provide: (f) => [
    EditorView.decorations.from(f, (pos) => (pos === null ? Decoration.none : Decoration.set([errLine.range(pos)]))),
    gutterLineClass.from(f, (pos) => (pos === null ? RangeSet.empty : RangeSet.of([errGutter.range(pos)]))),
  ],
});

const theme = EditorView.theme({
  '&': {height: '100%'},
  '&.cm-focused': {outline: '2px solid #4e79a7'},
  '.cm-scroller': {fontFamily: 'inherit', fontSize: 'inherit', lineHeight: 'inherit', overflow: 'auto'},
  '.cm-gutters': {backgroundColor: '#f6f6f6', color: '#999', borderRight: '1px solid #ddd'},
  '.cm-gutterElement.err': {backgroundColor: '#e15759', color: '#fff'},
  '.cm-err-line': {backgroundColor: '#fde2e2'},
  '.cm-activeLine.cm-err-line': {backgroundColor: '#fbd0d0'},
});

function create(parent, text, onChange) {
  const root = parent.attachShadow({mode: 'open'});
  const view = new EditorView({
    parent: root, root,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(), history(),
        bracketMatching(), indentUnit.of('  '), EditorState.tabSize.of(2),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        syntaxHighlighting(defaultHighlightStyle, {fallback: true}), yaml(), markField, theme,
        EditorView.contentAttributes.of({'aria-label': 'Scenario YAML', spellcheck: 'false'}),
        EditorView.updateListener.of((u) => { if (u.docChanged && onChange) onChange(); }),
      ],
    }),
  });
  return {
    view,
    get: () => view.state.doc.toString(),
    set(t) {
      view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: t}, effects: setMark.of(null),
        selection: {anchor: 0}});
      view.scrollDOM.scrollTop = 0;
    },
    mark(line, column) {
      const doc = view.state.doc;
      if (!(line >= 1 && line <= doc.lines)) { view.dispatch({effects: setMark.of(null)}); return; }
      const l = doc.line(line);
      const at = Math.min(l.to, l.from + Math.max(0, (column || 1) - 1));
      view.dispatch({effects: [setMark.of(l.from), EditorView.scrollIntoView(at, {y: 'center'})],
        selection: {anchor: at}});
      view.focus();
    },
  };
}

window.GpueconEditor = {create};
