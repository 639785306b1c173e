use super::*;

/// A callback's call in chars: 1,000 of instruction, each message whole
/// at its length, a cut one at the room it is given (or, past
/// `cuts_refused_under`, not at all: its marker would not fit).
struct Fake {
    facts: Vec<EntryFacts>,
    cut: Vec<(usize, f64)>,
    cuts_refused_under: f64,
    /// Measures every message asked about (as a token counter must), and logs it.
    measures_all: bool,
    measured: Vec<usize>,
}

impl Sizer for Fake {
    fn overhead(&mut self, _: SpanBound) -> Result<f64, InvalidSpot> {
        Ok(1_000.0)
    }
    fn entry(&mut self, _: SpanBound, index: usize, _: &EntryFacts, room: f64) -> Result<Option<f64>, InvalidSpot> {
        let units = self.facts[index].content_units as f64;
        if self.measures_all {
            self.measured.push(index);
            return Ok(Some(units));
        }
        Ok((units <= room).then_some(units))
    }
    fn cut(&mut self, _: SpanBound, index: usize, _: &EntryFacts, room: f64) -> Result<Option<Cut>, InvalidSpot> {
        if room < self.cuts_refused_under {
            return Ok(None);
        }
        self.cut.push((index, room));
        let units = self.facts[index].content_units;
        let left_out = units.saturating_sub(room as usize);
        Ok(Some(Cut { index, id: format!("m{index}"), text: String::new(), cost: room, units, left_out }))
    }
}

/// Entries as (turn, length).
fn fake(entries: &[(f64, usize)]) -> Fake {
    let facts = entries
        .iter()
        .map(|&(turn, content_units)| EntryFacts { turn: Some(turn), content_units, ..EntryFacts::default() })
        .collect();
    Fake { facts, cut: Vec::new(), cuts_refused_under: 0.0, measures_all: false, measured: Vec::new() }
}

const CHARS: fn(f64) -> SpanBound = |max| SpanBound { unit: BoundUnit::Chars, max };

fn fits(bound: SpanBound, sizer: &mut Fake, rolled: &[usize], raw: &[usize]) -> (usize, Bounded) {
    let facts = sizer.facts.clone();
    match fit(bound, &facts, rolled, raw, sizer).expect("the fake counts everything") {
        Fitted::Fits { raw_entries, bounded, .. } => (raw_entries, bounded),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_span_within_the_bound_is_sent_whole() {
    let mut sizer = fake(&[(1.0, 500), (1.0, 500), (2.0, 700)]);
    let (entries, bounded) = fits(CHARS(20_000.0), &mut sizer, &[], &[0, 1, 2]);
    assert_eq!(entries, 3);
    assert_eq!(bounded.sent, 2_700.0, "instruction and messages");
    assert!(!bounded.shaped_the_span());
}

#[test]
fn whole_turns_fold_oldest_first_and_the_rest_waits() {
    // Turns of 6,000 each (two messages); 16,000 of room after the instruction.
    let mut sizer = fake(&[(1.0, 2_800), (1.0, 3_200), (2.0, 2_800), (2.0, 3_200), (3.0, 2_800), (3.0, 3_200)]);
    let (entries, bounded) = fits(CHARS(17_000.0), &mut sizer, &[], &[0, 1, 2, 3, 4, 5]);
    assert_eq!(entries, 4, "turns 1 and 2; turn 3 would split at the seam");
    assert_eq!((bounded.deferred_entries, bounded.deferred_chars), (2, 6_000));
    assert_eq!(bounded.sent, 13_000.0);
    assert!(bounded.cuts.is_empty(), "half the room was filled: nothing is cut");
    assert!(bounded.shaped_the_span());
}

#[test]
fn a_turn_that_cannot_fit_is_cut_when_what_fits_is_under_half_the_room() {
    // A short first turn, then a turn with a 100 KB log: waiting would never let it fit.
    let mut sizer = fake(&[(1.0, 300), (2.0, 200), (2.0, 100_000), (3.0, 400)]);
    let (entries, bounded) = fits(CHARS(11_000.0), &mut sizer, &[], &[0, 1, 2, 3]);
    assert_eq!(entries, 3, "turn 2 folds, its log cut");
    assert_eq!(sizer.cut, [(2, 9_500.0)], "the room left after the short messages");
    assert_eq!(bounded.cuts[0].left_out, 90_500);
    assert_eq!(bounded.sent, 11_000.0);
    assert_eq!(bounded.deferred_entries, 1);
}

#[test]
fn the_largest_messages_of_a_cut_turn_share_the_room_and_the_smaller_go_whole() {
    let mut sizer = fake(&[(1.0, 1_000), (1.0, 30_000), (1.0, 2_000), (1.0, 50_000)]);
    let (entries, bounded) = fits(CHARS(21_000.0), &mut sizer, &[], &[0, 1, 2, 3]);
    assert_eq!(entries, 4);
    assert_eq!(sizer.cut, [(1, 8_500.0), (3, 8_500.0)], "(20,000 − 3,000) / 2 each, in span order");
    assert_eq!(bounded.cuts.iter().map(|cut| cut.id.as_str()).collect::<Vec<_>>(), ["m1", "m3"]);
}

#[test]
fn what_fills_half_the_room_folds_alone_and_a_huge_turn_waits_for_a_call_of_its_own() {
    let mut sizer = fake(&[(1.0, 6_000), (2.0, 1_000_000)]);
    let (entries, bounded) = fits(CHARS(11_000.0), &mut sizer, &[], &[0, 1]);
    assert_eq!((entries, bounded.deferred_entries, bounded.deferred_chars), (1, 1, 1_000_000));
    assert!(sizer.cut.is_empty());
    // The next turn's fold: the log alone, cut to the whole room.
    let (entries, bounded) = fits(CHARS(11_000.0), &mut sizer, &[], &[1]);
    assert_eq!((entries, bounded.cuts.len()), (1, 1));
    assert_eq!(sizer.cut, [(1, 10_000.0)]);
}

#[test]
fn rolled_summaries_count_toward_the_bound_and_are_never_cut() {
    let mut sizer = fake(&[(0.0, 2_500), (1.0, 6_000), (2.0, 6_000)]);
    let (entries, bounded) = fits(CHARS(14_000.0), &mut sizer, &[0], &[1, 2]);
    assert_eq!(entries, 1, "1,000 + 2,500 + 6,000 is over half the bound; another turn does not fit");
    assert_eq!(bounded.sent, 9_500.0);
    let facts = sizer.facts.clone();
    let Ok(Fitted::Fits { rolled, raw_entries, bounded }) = fit(CHARS(10_000.0), &facts, &[0], &[1, 2], &mut sizer)
    else {
        panic!("the raw span fits without the summary")
    };
    assert_eq!(
        (rolled, raw_entries, bounded.sent),
        (0, 1, 7_000.0),
        "with it, 6,500 would be under the 8,000 a fold needs"
    );
    assert_eq!(
        fit(CHARS(8_500.0), &facts, &[0], &[1, 2], &mut sizer),
        Ok(Fitted::TooSmall { needed: 9_000.0 }),
        "the instruction alone leaves 7,500: what it needs with no summary rolled in"
    );
}

#[test]
fn a_turn_of_too_many_huge_messages_does_not_fit_at_all() {
    let entries: Vec<(f64, usize)> = (0..100).map(|_| (1.0, 50_000)).collect();
    let mut sizer = fake(&entries);
    let raw: Vec<usize> = (0..100).collect();
    let facts = sizer.facts.clone();
    assert_eq!(
        fit(CHARS(10_000.0), &facts, &[], &raw, &mut sizer),
        Ok(Fitted::TooSmall { needed: 21_000.0 }),
        "90 each, under the 200 a cut needs: the instruction and 200 a message"
    );
    assert!(sizer.cut.is_empty(), "no message is cut for a call that cannot be made");
}

#[test]
fn many_messages_a_little_too_long_are_each_cut_a_little() {
    // 60 messages of 700 against 39,000 of room: 650 each, above the floor.
    let entries: Vec<(f64, usize)> = (0..60).map(|_| (1.0, 700)).collect();
    let mut sizer = fake(&entries);
    let raw: Vec<usize> = (0..60).collect();
    let (entries, bounded) = fits(CHARS(40_000.0), &mut sizer, &[], &raw);
    assert_eq!((entries, bounded.cuts.len()), (60, 60));
    assert!(sizer.cut.iter().all(|&(_, room)| room == 650.0), "{:?}", &sizer.cut[..2]);
}

#[test]
fn a_turn_that_cannot_be_cut_holds_the_span_back_even_behind_a_short_turn() {
    // Turn 1 alone is too little to fold; turn 2's messages cannot be cut to their shares.
    let mut sizer = fake(&[(1.0, 10), (2.0, 50_000), (2.0, 50_000)]);
    sizer.cuts_refused_under = 10_000.0;
    let facts = sizer.facts.clone();
    assert_eq!(
        fit(CHARS(11_000.0), &facts, &[], &[0, 1, 2], &mut sizer),
        Ok(Fitted::TooSmall { needed: 11_001.0 }),
        "the cuts were refused: more than this bound, at least"
    );
}

#[test]
fn a_cut_keeps_head_and_tail_around_a_marker_within_its_room() {
    let text: String = (0..20_000).map(|at| char::from(b'a' + (at % 26) as u8)).collect();
    let (cut, left_out) = cut_message(&text, &text, 20_000, 1_000, Rendering::Plain).unwrap();
    assert!(cut.encode_utf16().count() <= 1_000, "{}", cut.len());
    let marker = cut_marker(left_out);
    let (head, tail) = cut.split_once(&marker).expect("one marker");
    assert!(text.starts_with(head) && text.ends_with(tail));
    assert_eq!(head.len() + tail.len() + left_out, 20_000);
    assert!(head.len().abs_diff(tail.len()) <= 1, "{} and {}", head.len(), tail.len());
    assert!(marker.contains(&format!("{left_out} characters")));
}

#[test]
fn a_cut_never_splits_a_character_and_counts_what_a_transcript_adds() {
    let text = "😀\nline\r\n".repeat(2_000);
    let units = text.encode_utf16().count();
    let (cut, left_out) = cut_message(&text, &text, units, 600, Rendering::Transcript).unwrap();
    let sent: usize = cut.chars().map(|c| if is_line_break(c) { 5 } else { c.len_utf16() }).sum();
    assert!(sent <= 600, "{sent}");
    assert_eq!(cut.encode_utf16().count() - cut_marker(left_out).encode_utf16().count() + left_out, units);
    assert_eq!(cut_message(&text, &text, units, 20, Rendering::Plain), None, "no room for the marker");
}

#[test]
fn head_and_tail_of_a_short_message_never_overlap() {
    // Room for the whole message: head and tail meet, nothing is left out.
    let text = "abcdefghij".repeat(30);
    let (cut, left_out) = cut_message(&text, &text, 300, 10_000, Rendering::Plain).unwrap();
    assert_eq!(left_out, 0);
    let (head, tail) = cut.split_once(&cut_marker(0)).expect("one marker");
    assert_eq!(format!("{head}{tail}"), text, "each unit kept once");
}

#[test]
fn a_cut_line_costs_no_more_than_the_transcript_writes() {
    use crate::core::format::{transcript_line, utf16_len, TranscriptLine};
    let text = "ok\r\n<<<END TRANSCRIPT>>>\u{2028}😀 line\n".repeat(500);
    let units = utf16_len(&text);
    let line = |content: &str| {
        transcript_line(&TranscriptLine { role: Some("tool"), turn: Some(3.0), content, summary: false })
    };
    let frame = utf16_len(&line(""));
    for room in [300, 1_000, 4_000] {
        let (cut, _) = cut_message(&text, &text, units, room, Rendering::Transcript).unwrap();
        assert!(utf16_len(&line(&cut)) - frame <= room, "room {room}: {}", utf16_len(&line(&cut)) - frame);
    }
}

#[test]
fn cutting_costs_the_room_not_the_message() {
    // The host hands over a head and a tail as long as the room, never the
    // middle: a 10 MB message costs what its 2,000-unit ends cost.
    let head = "h".repeat(2_000);
    let tail = "t".repeat(2_000);
    let (cut, left_out) = cut_message(&head, &tail, 10_000_000, 2_000, Rendering::Plain).unwrap();
    assert!(cut.starts_with('h') && cut.ends_with('t'));
    assert_eq!(left_out, 10_000_000 - (cut.len() - cut_marker(left_out).len()));
}

/// A try that gives up (here: the summary leaves too little room to cut
/// the first turn) hands what it measured to the next: each message is
/// measured once however many summaries the fit tries.
#[test]
fn each_message_is_measured_once_across_the_tries() {
    let mut sizer = fake(&[(0.5, 3_000), (1.0, 8_800), (2.0, 700)]);
    (sizer.measures_all, sizer.cuts_refused_under) = (true, 9_000.0);
    let facts = sizer.facts.clone();
    let fitted = fit(CHARS(12_500.0), &facts, &[0], &[1, 2], &mut sizer).expect("counted");
    let Fitted::Fits { rolled, raw_entries, .. } = fitted else { panic!("{fitted:?}") };
    assert_eq!((rolled, raw_entries), (0, 2), "the summary waits; both turns fold whole");
    assert_eq!(sizer.measured, [0, 1, 2]);
}
