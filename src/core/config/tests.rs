use super::*;

/// `token_options` over these values of `triggerMinTokens`,
/// `preserveRecentTokens`, `preserveRecent` and `minFoldTokens`.
fn tokens_of(
    counter_given: bool,
    trigger_min: Option<f64>,
    preserve_recent: Option<f64>,
    preserve_recent_entries: Option<f64>,
    min_fold: Option<f64>,
) -> Result<Option<TokenOptions>, ConfigError> {
    token_options(counter_given, |key| {
        Ok(match key {
            Key::TriggerMinTokens => trigger_min,
            Key::PreserveRecentTokens => preserve_recent,
            Key::PreserveRecent => preserve_recent_entries,
            Key::MinFoldTokens => min_fold,
            _ => None,
        })
    })
}

#[test]
fn each_key_has_its_own_name() {
    for (index, key) in Key::ALL.iter().enumerate() {
        assert_eq!(*key as usize, index, "Key::ALL is in declaration order");
        assert_eq!(KNOWN_KEYS[index], key.name());
    }
    let mut names = KNOWN_KEYS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Key::ALL.len());
}

#[test]
fn checked_keep_details_bounds_are_written_under_the_keys_the_object_form_reads() {
    let written = serde_json::to_value(PinBounds::DEFAULT).expect("serializes");
    let mut keys: Vec<&str> = written.as_object().expect("an object").keys().map(String::as_str).collect();
    let mut expected = KEEP_DETAILS_KEYS.to_vec();
    keys.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys, expected);
    let read = keep_details_option(|key| Ok(written[key].as_f64())).expect("reads back");
    assert_eq!(read, PinBounds::DEFAULT);
}

#[test]
fn claim_versions_differ_within_a_millisecond_and_stay_safe_integers() {
    assert_eq!(claim_version(5000.7, 0.0), 5_120_000.0);
    assert_eq!(claim_version(5000.0, 0.9999), 5_121_023.0);
    assert_ne!(claim_version(5000.0, 0.1), claim_version(5000.0, 0.2));
    assert_eq!(claim_version(-3.0, 0.5), 1024.0 + 512.0, "a clock before 1970 still gives a version above 0");
    assert!(claim_version(1e300, 0.99) <= MAX_SAFE_INTEGER);
}

#[test]
fn claim_leases_outlast_the_call_and_the_write() {
    assert_eq!(claim_lease_option(false, None, None, false, false), Ok(None));
    assert_eq!(claim_lease_option(true, None, None, false, true), Ok(Some(DEFAULT_CLAIM_LEASE_MS)));
    assert_eq!(claim_lease_option(true, None, Some(45_000.0), false, true), Ok(Some(135_000.0)));
    assert_eq!(claim_lease_option(true, None, None, true, true), Ok(Some(3.0 * BACKGROUND_TIMEOUT_MS)));
    let err = claim_lease_option(true, Some(60_000.0), None, true, true).unwrap_err();
    assert!(
        err.message.contains("at least 360000") && err.message.contains("a background call's deadline"),
        "{}",
        err.message
    );
    assert_eq!(
        claim_lease_option(true, Some(135_000.0), Some(45_000.0), false, true),
        Ok(Some(135_000.0)),
        "the default is accepted"
    );
    assert_eq!(claim_lease_option(true, Some(6_000.0), Some(2_000.0), false, true), Ok(Some(6_000.0)));
    let err = claim_lease_option(true, Some(5_000.0), Some(2_000.0), false, true).unwrap_err();
    assert_eq!(err.class, ErrorClass::RangeError);
    assert!(
        err.message.contains("`claimLeaseMs`")
            && err.message.contains("(5000)")
            && err.message.contains("at least 6000")
    );
    for (lease, timeout) in [(0.0, None), (0.0, Some(0.0)), (f64::NAN, None)] {
        let err = claim_lease_option(true, Some(lease), timeout, false, true).unwrap_err();
        assert!(err.message.contains("a whole number of ms, at least 1;"), "{}", err.message);
        assert!(err.message.ends_with("Fix: pass a longer lease, or omit it for the default."), "{}", err.message);
    }
    for lease in [1.5, 9_007_199_254_740_992.0, 1e300] {
        let err = claim_lease_option(true, Some(lease), None, false, true).unwrap_err();
        assert!(
            err.message.contains("a whole number of ms, at least 1, and at most 9007199254740991;"),
            "{}",
            err.message
        );
        assert!(
            err.message
                .ends_with("Fix: pass a whole number of ms from 1 to 9007199254740991, or omit it for the default."),
            "{}",
            err.message
        );
    }
    let err = claim_lease_option(true, None, None, false, false).unwrap_err();
    assert!(err.message.contains("`store`") && err.message.contains("putIfVersion"), "{}", err.message);
    let err = claim_lease_option(false, Some(1_000.0), None, false, true).unwrap_err();
    assert!(err.message.contains("nothing") && err.message.contains("claims: true"), "{}", err.message);
}

#[test]
fn counts_accept_whole_numbers_only() {
    assert_eq!(count_option(SUMMARIZE_CALL, "preserveRecent", 0.0, 5), Ok(0));
    assert_eq!(count_option(SUMMARIZE_CALL, "preserveRecent", 12.0, 5), Ok(12));
    for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 1e300] {
        let err = count_option(SUMMARIZE_CALL, "preserveRecent", bad, 5).unwrap_err();
        assert_eq!(err.class, ErrorClass::RangeError);
        assert!(err.message.starts_with("summarize(config): `preserveRecent`"), "{}", err.message);
        assert!(err.message.contains("default (5)"), "{}", err.message);
    }
    let err = count_option(EXTRACTIVE_CALL, "maxChars", -2.0, 1).unwrap_err();
    assert!(
        err.message.starts_with("extractive(options): `maxChars`") && err.message.contains("received a number (-2)")
    );
}

#[test]
fn timeouts_stay_within_what_set_timeout_can_wait() {
    assert_eq!(timeout_option("timeoutMs", MAX_TIMEOUT_MS), Ok(MAX_TIMEOUT_MS));
    assert!(timeout_option("timeoutMs", MAX_TIMEOUT_MS + 1.0)
        .unwrap_err()
        .message
        .contains("no larger than 2147483647"));
    assert_eq!(ttl_option("ttlMs", 1e15), Ok(1e15), "a ttl is not a timer");
    let zero = timeout_option("timeoutMs", 0.0).unwrap_err().message;
    assert!(zero.contains("received a number (0)") && zero.contains("or omit it for no deadline"), "{zero}");
    assert_eq!(timeout_option("timeoutMs", 1.0), Ok(1.0));
}

#[test]
fn parity_messages_carry_their_stable_phrases() {
    let m = ConfigError::model_required("undefined").message;
    assert!(m.contains("`model` is required"));
    assert!(m.contains("main model") && m.contains("never heard of") && m.contains("Fix:"));
    assert!(ConfigError::model_with_callback("''").message.contains("nothing would read it"));
}

#[test]
fn unknown_keys_name_the_nearest_known_one() {
    assert_eq!(nearest_known_key("preserveRecnet"), Some("preserveRecent"));
    assert_eq!(nearest_known_key("maxsummaries"), Some("maxSummaries"));
    assert_eq!(nearest_known_key("timeout"), Some("timeoutMs"));
    assert_eq!(nearest_known_key("PRESERVERECÉNT"), Some("preserveRecent"), "case aside, by chars");
    assert_eq!(nearest_known_key("completelyDifferent"), None);
    let error = ConfigError::unknown_key("preserveRecnet", "a number (4)");
    assert_eq!(error.class, ErrorClass::TypeError);
    assert!(error.message.contains("`preserveRecnet` is not an option (received a number (4))"), "{}", error.message);
    assert!(error.message.ends_with("did you mean `preserveRecent`?"), "{}", error.message);
    assert!(ConfigError::unknown_key("zzz", "1").message.contains("`maxSummaries`"));
}

#[test]
fn token_options_are_whole_numbers_and_replace_preserve_recent() {
    assert_eq!(tokens_of(false, None, None, Some(5.0), None), Ok(None), "no token option: no counting");
    assert_eq!(tokens_of(true, None, None, None, None), Ok(Some(TokenOptions::default())));
    assert_eq!(
        tokens_of(false, Some(4000.0), Some(0.0), None, None),
        Ok(Some(TokenOptions { trigger_min: Some(4000.0), preserve_recent: Some(0.0), min_fold: 0.0 }))
    );
    let fraction = tokens_of(false, Some(1.5), None, None, None).unwrap_err();
    assert_eq!(fraction.class, ErrorClass::RangeError);
    assert!(fraction.message.contains("`triggerMinTokens` must be a non-negative integer"), "{}", fraction.message);
    let both = tokens_of(false, None, Some(400.0), Some(5.0), None).unwrap_err();
    assert!(both.message.contains("`preserveRecentTokens` (400) and `preserveRecent` (5)"), "{}", both.message);
    assert!(both.message.contains("Fix: remove one of them."));
}

#[test]
fn min_fold_tokens_defaults_to_the_verbatim_tail_and_turns_counting_on() {
    let options = |min_fold, preserve| tokens_of(false, None, preserve, None, min_fold).unwrap();
    assert_eq!(options(None, Some(500.0)).map(|t| t.min_fold), Some(500.0), "the tail's tokens");
    assert_eq!(options(Some(120.0), Some(500.0)).map(|t| t.min_fold), Some(120.0), "as given");
    assert_eq!(options(Some(0.0), Some(500.0)).map(|t| t.min_fold), Some(0.0), "0 turns the floor off");
    assert_eq!(options(Some(300.0), None), Some(TokenOptions { min_fold: 300.0, ..TokenOptions::default() }));
    let counter_only = tokens_of(true, Some(2000.0), None, Some(5.0), None).unwrap();
    assert_eq!(counter_only.map(|t| t.min_fold), Some(0.0), "a tail in entries: no floor in tokens");
    for bad in [-1.0, 2.5, f64::INFINITY] {
        let error = tokens_of(false, None, None, None, Some(bad)).unwrap_err();
        assert_eq!(error.class, ErrorClass::RangeError);
        assert!(error.message.starts_with("summarize(config): `minFoldTokens` must be a non-negative integer"));
        assert!(error.message.contains("omit it for the default (`preserveRecentTokens`, or 0 without it)"));
    }
}

#[test]
fn max_summaries_is_a_positive_integer() {
    assert_eq!(max_summaries_option(1.0), Ok(1));
    for bad in [0.0, -1.0, 1.5, f64::NAN, 9_007_199_254_740_992.0] {
        let error = max_summaries_option(bad).unwrap_err();
        assert!(
            error.message.starts_with("summarize(config): `maxSummaries` must be a positive integer"),
            "{}",
            error.message
        );
        assert!(!error.message.contains(">= 0"), "0 is refused, so no fix offers it: {}", error.message);
    }
    assert_eq!(trigger_chars_option(0.0), Ok(0));
}

#[test]
fn tiers_round_trip() {
    for name in ["hot", "warm", "cold"] {
        assert_eq!(Tier::parse(name).map(Tier::as_str), Some(name));
    }
    assert_eq!(Tier::parse("frozen"), None);
}

/// A config as the bindings would report it: each given key's value.
struct Given(Vec<(Key, Found)>);

impl Options for Given {
    fn found(&self, key: Key) -> Found {
        self.0.iter().find(|(given, _)| *given == key).map_or(Found::Absent, |(_, found)| found.clone())
    }

    fn describe(&self, key: Key) -> String {
        format!("{:?}", self.found(key))
    }

    fn keep_details_fields(&self) -> Result<[(Found, String); 2], ConfigError> {
        Ok([(Found::Absent, String::new()), (Found::Absent, String::new())])
    }
}

/// A provider and a store with every method, and `putIfVersion` as given.
struct Callable(Found);

impl Methods for Callable {
    fn provider_completes(&self) -> bool {
        true
    }

    fn store_puts(&self) -> bool {
        true
    }

    fn put_if_version(&self) -> Result<(Found, String), String> {
        Ok((self.0.clone(), "a number (5)".to_owned()))
    }
}

fn provider(model: &str) -> Vec<(Key, Found)> {
    vec![(Key::Llm, Found::Object), (Key::Model, Found::Text(model.to_owned()))]
}

fn refusal_of(given: Vec<(Key, Found)>, methods: Option<&dyn Methods>) -> Option<String> {
    read(&Given(given), methods).1.map(|refusal| refusal.message)
}

#[test]
fn the_rules_between_options_are_the_cores() {
    let callback_with_model = vec![(Key::Llm, Found::Function), (Key::Model, Found::Text("m".into()))];
    assert!(refusal_of(callback_with_model, None).is_some_and(|m| m.contains("`model`")));
    let background_alone = [provider("m"), vec![(Key::Background, Found::Bool(true))]].concat();
    assert_eq!(refusal_of(background_alone, None), Some(ConfigError::background_without_store().message));
    let wait_until_alone = [provider("m"), vec![(Key::WaitUntil, Found::Function)]].concat();
    assert_eq!(refusal_of(wait_until_alone, None), Some(ConfigError::wait_until_without_background().message));
    let claims = [provider("m"), vec![(Key::Store, Found::Object), (Key::Claims, Found::Bool(true))]].concat();
    assert_eq!(
        refusal_of(claims.clone(), Some(&Callable(Found::Number(5.0)))),
        Some(ConfigError::put_if_version_not_a_function("a number (5)").message)
    );
    assert_eq!(refusal_of(claims.clone(), Some(&Callable(Found::Function))), None);
    assert_eq!(refusal_of(claims, None), None, "a visit does not look the caller's methods up again");
}

#[test]
fn reading_goes_on_past_a_refusal_and_the_first_one_is_met() {
    let given = [
        provider(" "),
        vec![(Key::TriggerMinEntries, Found::Text("20".into())), (Key::PreserveRecent, Found::Number(3.0))],
    ]
    .concat();
    let (config, refusal) = read(&Given(given), None);
    assert!(refusal.is_some_and(|refusal| refusal.message.contains("`model`")), "the blank model comes first");
    assert_eq!((config.trigger_min_entries, config.preserve_recent), (20, 3), "a refused option takes its default");
    let (config, refusal) = read(&Given(provider("gpt")), None);
    assert_eq!((config.model(), refusal), (Some("gpt"), None));
}
