//! What a summarizer call is sent (SPEC §4 step 8, §5): the provider's
//! transcript, or the callback's messages, with each role read once; and,
//! under a span bound (`maxSpanChars`, `maxSpanTokens`), what each piece
//! of the call costs, as `core::span_bound` asks, and the messages it
//! sends cut, kept for the call.
//!
//! With a provider a message is its transcript line, after its line break;
//! with a callback it is its content. In tokens, each piece is counted by
//! `countTokens` on its own, the transcript's line breaks included, so the
//! pieces add up to the whole text the call is sent.

use js_sys::{Array, JsString};

use super::host::JsHost;
use super::output::to_js;
use super::recall;
use super::tokens;
use crate::core::events::InvalidSpot;
use crate::core::format::{transcript, transcript_line, utf16_len, TranscriptLine};
use crate::core::recall::EntryFacts;
use crate::core::shapes::{CutMessage, Message};
use crate::core::span_bound::{cut_message, BoundUnit, Cut, Rendering, Sizer, SpanBound};

/// An entry's role, as the call takes it.
#[derive(Clone, Default)]
pub(super) enum RoleRead {
    #[default]
    Unread,
    /// `String(role)`, or None for an absent role.
    Read(Option<String>),
    /// A role with no string form (a getter that throws, a symbol).
    Unreadable,
}

/// A message a span bound sends cut: its entry's index, its role (None
/// when absent or with no string form) and the text it is sent as.
pub(super) struct CutText {
    pub index: usize,
    pub role: Option<String>,
    pub text: String,
}

/// How many times a cut in tokens is measured before it gives up: each
/// try shrinks the text by what the count said it was over.
const TOKEN_CUT_TRIES: usize = 5;

impl Sizer for JsHost {
    fn overhead(&mut self, bound: SpanBound) -> Result<f64, InvalidSpot> {
        let pieces = self.settings.core.call_overhead();
        if bound.unit == BoundUnit::Chars {
            return Ok(pieces.iter().map(|piece| utf16_len(piece) as f64).sum());
        }
        pieces
            .iter()
            .try_fold(0.0, |sum, piece| Ok(sum + self.count(piece).map_err(InvalidSpot::uncounted_instruction)?))
    }

    fn entry(
        &mut self,
        bound: SpanBound,
        index: usize,
        facts: &EntryFacts,
        room: f64,
    ) -> Result<Option<f64>, InvalidSpot> {
        // A message costs at least its content: past the room, it is not measured.
        let content_cost = match bound.unit {
            BoundUnit::Chars => facts.content_units as f64,
            BoundUnit::Tokens => facts.tokens,
        };
        if content_cost > room {
            return Ok(None);
        }
        if self.settings.core.model().is_none() {
            return Ok(Some(content_cost));
        }
        let content = self.content_text(index);
        let line = self.line(index, facts, &content);
        self.measure(bound, index, &line).map(Some)
    }

    fn cut(
        &mut self,
        bound: SpanBound,
        index: usize,
        facts: &EntryFacts,
        room: f64,
    ) -> Result<Option<Cut>, InvalidSpot> {
        let Some(content) = self.content(index) else {
            return Ok(None);
        };
        let units = content.length() as usize;
        let (frame, rendering) = match self.settings.core.model() {
            Some(_) => (self.line(index, facts, ""), Rendering::Transcript),
            None => (String::new(), Rendering::Plain),
        };
        let frame_cost = match bound.unit {
            BoundUnit::Chars => utf16_len(&frame) as f64,
            BoundUnit::Tokens if frame.is_empty() => 0.0,
            BoundUnit::Tokens => self.measure(bound, index, &frame)?,
        };
        // Chars: the room itself. Tokens: the room at the message's own
        // chars per token, tried and shrunk by what each count was over.
        let chars_per_unit = match bound.unit {
            BoundUnit::Chars => 1.0,
            BoundUnit::Tokens => units as f64 / facts.tokens.max(1.0),
        };
        let mut message_room = ((room - frame_cost) * chars_per_unit).max(0.0) as usize;
        for _ in 0..TOKEN_CUT_TRIES {
            let ends = message_room.min(units) as u32 + 1;
            let head = String::from(content.slice(0, ends));
            let tail = String::from(content.slice((units as u32).saturating_sub(ends), units as u32));
            let Some((text, left_out)) = cut_message(&head, &tail, units, message_room, rendering) else {
                return Ok(None);
            };
            let sent = match rendering {
                Rendering::Transcript => self.line(index, facts, &text),
                Rendering::Plain => text.clone(),
            };
            let cost = self.measure(bound, index, &sent)?;
            if cost <= room {
                let id = String::from(&self.recall.read()[index].id);
                return Ok(Some(Cut { index, id, text, cost, units, left_out }));
            }
            message_room = (message_room as f64 * room / cost * 0.9) as usize;
        }
        Ok(None)
    }
}

impl JsHost {
    /// The provider transcript (SPEC §5), from each span entry's role and
    /// content as read (or as a span bound cut it); None when a role has no
    /// string form.
    pub(super) fn transcript(&self, span: &[usize]) -> Option<String> {
        let lines = self.span_lines.as_ref()?;
        let contents: Vec<String> = span
            .iter()
            .map(|&index| match self.cut_text(index) {
                Some(cut) => cut.text.clone(),
                None => self.content_text(index),
            })
            .collect();
        Some(transcript(lines.iter().zip(&contents).map(|(line, content)| TranscriptLine {
            role: line.role.as_deref(),
            turn: line.turn,
            content,
            summary: line.summary,
        })))
    }

    /// Entry `index`'s role, as the transcript and a cut message take it:
    /// read the first time it is asked for, and kept. None when it has no
    /// string form.
    pub(super) fn role(&mut self, index: usize) -> Option<Option<String>> {
        // A fold in the background no longer holds the entries: its roles were read.
        let entries = self.recall.read();
        let entry = entries.get(index)?;
        if self.roles.len() < entries.len() {
            self.roles.resize(entries.len(), RoleRead::Unread);
        }
        if let RoleRead::Unread = self.roles[index] {
            self.roles[index] = recall::role_of(entry).map_or(RoleRead::Unreadable, RoleRead::Read);
        }
        match &self.roles[index] {
            RoleRead::Read(role) => Some(role.clone()),
            _ => None,
        }
    }

    /// The message a span bound sends cut for entry `index`, if it cut it.
    fn cut_text(&self, index: usize) -> Option<&CutText> {
        self.cut_texts.iter().find(|cut| cut.index == index)
    }

    /// The callback's messages (the instruction, then the span's own value
    /// objects, but a cut one's `{ role, content }`) and their UTF-16 length.
    pub(super) fn callback_messages(&self, span: &[usize], instruction: String) -> (Array, usize) {
        let mut sent_chars = utf16_len(&instruction);
        let messages: Array = span
            .iter()
            .map(|&index| match self.cut_text(index) {
                Some(cut) => {
                    sent_chars += utf16_len(&cut.text);
                    to_js(&CutMessage { role: cut.role.clone(), content: &cut.text })
                }
                None => {
                    sent_chars += self.content(index).map_or(0, |text| text.length() as usize);
                    self.value(index)
                }
            })
            .collect();
        messages.unshift(&to_js(&Message { role: "system", content: instruction }));
        (messages, sent_chars)
    }

    /// Entry `index`'s transcript line with `content`, after its line break.
    fn line(&mut self, index: usize, facts: &EntryFacts, content: &str) -> String {
        let role = self.role(index).flatten();
        let line =
            TranscriptLine { role: role.as_deref(), turn: facts.turn, content, summary: facts.summary.is_some() };
        format!("\n{}", transcript_line(&line))
    }

    /// `text`'s cost under `bound`, as part of entry `index`'s message.
    fn measure(&self, bound: SpanBound, index: usize, text: &str) -> Result<f64, InvalidSpot> {
        match bound.unit {
            BoundUnit::Chars => Ok(utf16_len(text) as f64),
            BoundUnit::Tokens => self.count(text).map_err(|found| InvalidSpot::uncounted(index, found)),
        }
    }

    /// `text`'s tokens by the stage's `countTokens`, or what it gave instead.
    fn count(&self, text: &str) -> Result<f64, String> {
        tokens::count(self.settings.count_tokens.as_ref(), &JsString::from(text))
    }
}
