//! A config read once, in one order (SPEC §3): every option's type and
//! range, and the rules between options. The bindings report what each
//! option of the config's copy holds ([`Options`]) and, at build, whether
//! the caller's objects have the methods the stage calls ([`Methods`]);
//! every decision is here.
//!
//! Reading is total: an option that is refused takes its default and the
//! rest are read on, so the first refusal is what a caller meets. The
//! build throws it; a visit re-reads only a copy its build checked, which
//! holds none, so a visit never refuses.

use super::*;

use crate::core::format::is_blank;

/// What one option holds, as the bindings found it in the config's copy.
#[derive(Clone, Debug)]
pub enum Found {
    Absent,
    Number(f64),
    Text(String),
    /// A string with a lone surrogate, which Rust's text cannot hold.
    IllFormedText,
    Bool(bool),
    Function,
    /// An object that is no function (an array too).
    Object,
    /// Anything else: null, a symbol, a bigint.
    Other,
}

/// A config's copy, as the bindings report it.
pub trait Options {
    /// What `key` holds.
    fn found(&self, key: Key) -> Found;
    /// How a refusal names what `key` holds.
    fn describe(&self, key: Key) -> String;
    /// `keepDetails`'s object form: what each of [`KEEP_DETAILS_KEYS`]
    /// holds, with how a refusal names it, or the form's refusal when it is
    /// no plain object of those keys.
    fn keep_details_fields(&self) -> Result<[(Found, String); 2], ConfigError>;
}

/// The methods the stage calls on the caller's objects, looked up at build
/// only: a visit calls each when it needs it, and reads it then.
pub trait Methods {
    /// Whether the provider `llm` has `complete`.
    fn provider_completes(&self) -> bool;
    /// Whether the store has `put`.
    fn store_puts(&self) -> bool;
    /// The store's `putIfVersion` (read with `claims: true` only), with how
    /// a refusal names it, or how reading it threw.
    fn put_if_version(&self) -> Result<(Found, String), String>;
}

/// The config the options make, and the first refusal met reading them.
pub fn read(options: &impl Options, methods: Option<&dyn Methods>) -> (StageConfig, Option<ConfigError>) {
    let mut reader = Reader { options, first_refusal: None };
    let config = reader.config(methods);
    (config, reader.first_refusal)
}

struct Reader<'o, O> {
    options: &'o O,
    first_refusal: Option<ConfigError>,
}

impl<O: Options> Reader<'_, O> {
    /// `checked`'s value, or, once refused, `otherwise` (the refusal noted
    /// when it is the first).
    fn take<T>(&mut self, checked: Result<T, ConfigError>, otherwise: T) -> T {
        checked.unwrap_or_else(|refusal| {
            self.first_refusal.get_or_insert(refusal);
            otherwise
        })
    }

    fn refuse(&mut self, refusal: ConfigError) {
        self.take(Err(refusal), ());
    }

    fn refused(&self, key: Key) -> ConfigError {
        ConfigError::refused(key, &self.options.describe(key))
    }

    fn given(&self, key: Key) -> bool {
        !matches!(self.options.found(key), Found::Absent)
    }

    /// A number option: None when absent.
    fn number(&self, key: Key) -> Result<Option<f64>, ConfigError> {
        match self.options.found(key) {
            Found::Absent => Ok(None),
            Found::Number(n) => Ok(Some(n)),
            _ => Err(self.refused(key)),
        }
    }

    /// A string option's text: None when absent.
    fn text(&self, key: Key) -> Result<Option<String>, ConfigError> {
        match self.options.found(key) {
            Found::Absent => Ok(None),
            Found::Text(text) => Ok(Some(text)),
            Found::IllFormedText => Err(ConfigError::not_well_formed(key, &self.options.describe(key))),
            _ => Err(self.refused(key)),
        }
    }

    /// A boolean option: false when absent.
    fn boolean(&self, key: Key) -> Result<bool, ConfigError> {
        match self.options.found(key) {
            Found::Absent => Ok(false),
            Found::Bool(value) => Ok(value),
            _ => Err(self.refused(key)),
        }
    }

    /// A function option: whether it is given. `typeof`, not `instanceof`:
    /// a function from another realm is a function too.
    fn function(&self, key: Key) -> Result<bool, ConfigError> {
        match self.options.found(key) {
            Found::Absent => Ok(false),
            Found::Function => Ok(true),
            _ => Err(self.refused(key)),
        }
    }

    /// Every option: the summarizer and the store first, then the numbers,
    /// the strings and the functions, and the rules between them.
    fn config(&mut self, methods: Option<&dyn Methods>) -> StageConfig {
        let shape = self.shape(methods);
        let store = self.given(Key::Store);
        let object = matches!(self.options.found(Key::Store), Found::Object | Found::Function);
        if store && (!object || methods.is_some_and(|m| !m.store_puts())) {
            self.refuse(self.refused(Key::Store));
        }
        let mut config = StageConfig::new(shape);
        self.numbers(&mut config);
        self.strings(&mut config);
        let claims = self.boolean(Key::Claims);
        let claims = self.take(claims, false);
        if let Some(methods) = methods.filter(|_| claims && store) {
            self.check_put_if_version(methods);
        }
        let background = self.boolean(Key::Background);
        config.background = self.take(background, false);
        if config.background && !store {
            self.refuse(ConfigError::background_without_store());
        }
        let lease = self
            .number(Key::ClaimLeaseMs)
            .and_then(|lease| claim_lease_option(claims, lease, config.timeout_ms, config.background, store));
        config.claim_lease_ms = self.take(lease, None);
        self.functions(&mut config);
        config
    }

    /// The summarizer's shape: a callback, or a provider with its model.
    fn shape(&mut self, methods: Option<&dyn Methods>) -> Shape {
        let model = self.options.found(Key::Model);
        match self.options.found(Key::Llm) {
            Found::Function => {
                if !matches!(model, Found::Absent) {
                    self.refuse(ConfigError::model_with_callback(&self.options.describe(Key::Model)));
                }
                Shape::Callback
            }
            llm => {
                if !matches!(llm, Found::Object) || methods.is_some_and(|m| !m.provider_completes()) {
                    self.refuse(self.refused(Key::Llm));
                }
                let model = match model {
                    // A blank name names no model: the provider would refuse it on every turn.
                    Found::Text(model) if !is_blank(&model) => Ok(model),
                    Found::IllFormedText => {
                        Err(ConfigError::not_well_formed(Key::Model, &self.options.describe(Key::Model)))
                    }
                    _ => Err(ConfigError::model_required(&self.options.describe(Key::Model))),
                };
                Shape::Provider { model: self.take(model, String::new()) }
            }
        }
    }

    /// SPEC §1's counts and times, in this order.
    fn numbers(&mut self, config: &mut StageConfig) {
        let mut count = |key: Key, default: usize| {
            let count = self
                .number(key)
                .and_then(|n| n.map_or(Ok(default), |n| count_option(SUMMARIZE_CALL, key.name(), n, default)));
            self.take(count, default)
        };
        config.trigger_min_entries = count(Key::TriggerMinEntries, config.trigger_min_entries);
        config.preserve_recent = count(Key::PreserveRecent, config.preserve_recent);
        config.min_fold_entries = count(Key::MinFoldEntries, config.min_fold_entries);
        let max_summaries = self.number(Key::MaxSummaries).and_then(|n| n.map(max_summaries_option).transpose());
        config.max_summaries = self.take(max_summaries, None);
        let trigger_min_chars = self.number(Key::TriggerMinChars).and_then(|n| n.map(trigger_chars_option).transpose());
        config.trigger_min_chars = self.take(trigger_min_chars, None);
        let ttl = self.number(Key::TtlMs).and_then(|n| n.map(|n| ttl_option(Key::TtlMs.name(), n)).transpose());
        config.ttl_ms = self.take(ttl, None);
        let timeout =
            self.number(Key::TimeoutMs).and_then(|n| n.map(|n| timeout_option(Key::TimeoutMs.name(), n)).transpose());
        config.timeout_ms = self.take(timeout, None);
    }

    fn strings(&mut self, config: &mut StageConfig) {
        let prompt = self.text(Key::SystemPrompt);
        config.system_prompt = self.take(prompt, None);
        let strategy_id = self.text(Key::StrategyId);
        if let Some(strategy_id) = self.take(strategy_id, None) {
            config.strategy_id = strategy_id;
        }
        if self.given(Key::SummaryTier) {
            let name = match self.options.found(Key::SummaryTier) {
                Found::Text(name) => Some(name),
                // A string that names no tier (it cannot be read as text).
                Found::IllFormedText => Some(String::new()),
                _ => None,
            };
            let tier = Tier::option(name.as_deref(), || self.refused(Key::SummaryTier));
            config.tier = self.take(tier, Tier::DEFAULT);
        }
    }

    /// With `claims: true`, a store's `putIfVersion` is a function or absent.
    fn check_put_if_version(&mut self, methods: &dyn Methods) {
        match methods.put_if_version() {
            Ok((Found::Absent | Found::Function, _)) => {}
            Ok((_, described)) => self.refuse(ConfigError::put_if_version_not_a_function(&described)),
            Err(threw) => self.refuse(ConfigError::put_if_version_not_a_function(&threw)),
        }
    }

    /// The functions, the token options, `keepDetails` and a span bound.
    fn functions(&mut self, config: &mut StageConfig) {
        for key in [Key::OnEvent, Key::Now] {
            let function = self.function(key);
            self.take(function, false);
        }
        let counter = self.function(Key::CountTokens);
        let counter = self.take(counter, false);
        let wait_until = self.function(Key::WaitUntil);
        if self.take(wait_until, false) && !config.background {
            self.refuse(ConfigError::wait_until_without_background());
        }
        let tokens = token_options(counter, |key| self.number(key));
        config.tokens = self.take(tokens, None);
        let keep_details = self.keep_details();
        config.keep_details = self.take(keep_details, None);
        let max_span = self
            .number(Key::MaxSpanChars)
            .and_then(|chars| span_bound_option(config, chars, self.number(Key::MaxSpanTokens)?, counter));
        config.max_span = self.take(max_span, None);
    }

    /// `keepDetails`: `true` (the default bounds), `false`, or
    /// `{ maxDetails, maxChars }` (absent fields take the defaults).
    fn keep_details(&self) -> Result<Option<PinBounds>, ConfigError> {
        match self.options.found(Key::KeepDetails) {
            Found::Absent | Found::Bool(false) => Ok(None),
            Found::Bool(true) => Ok(Some(PinBounds::DEFAULT)),
            _ => {
                let fields = self.options.keep_details_fields()?;
                keep_details_option(|name| {
                    let field = KEEP_DETAILS_KEYS.iter().zip(&fields).find(|(key, _)| **key == name);
                    match field.map(|(_, field)| field) {
                        None | Some((Found::Absent, _)) => Ok(None),
                        Some((Found::Number(n), _)) => Ok(Some(*n)),
                        Some((_, described)) => {
                            Err(ConfigError::not_a_number(SUMMARIZE_CALL, &keep_details_field(name), described))
                        }
                    }
                })
                .map(Some)
            }
        }
    }
}
