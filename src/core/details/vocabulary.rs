//! The words and signs details are written with: currencies, units,
//! months, ordinals, in the languages the audit reads.

/// How a percentage is written in canonical text, whether `%`, `percent` or `per cent`.
pub(super) const PERCENT_CODE: &str = "pct";

/// Whether `suffix` is an ordinal's (`st` of `1st`), in any case.
pub(super) fn is_ordinal_suffix(suffix: &str) -> bool {
    ["st", "nd", "rd", "th"].iter().any(|ordinal| ordinal.eq_ignore_ascii_case(suffix))
}
/// Each currency sign, with the code of its most common currency (`$` is `usd`).
pub(super) const CURRENCY_SIGNS: &[(char, &str)] = &[
    ('$', "usd"),
    ('€', "eur"),
    ('£', "gbp"),
    ('¥', "jpy"),
    ('₹', "inr"),
    ('₩', "krw"),
    ('₽', "rub"),
    ('₺', "try"),
    ('₫', "vnd"),
    ('฿', "thb"),
    ('₴', "uah"),
    ('₪', "ils"),
    ('₱', "php"),
    ('₦', "ngn"),
    ('৳', "bdt"),
    ('₸', "kzt"),
    ('₼', "azn"),
    ('₾', "gel"),
    ('₭', "lak"),
    ('₮', "mnt"),
    ('₲', "pyg"),
    ('₡', "crc"),
    ('₵', "ghs"),
    // Written right after the digits in CJK text (`12,800円`, `649元`, `59,000원`).
    ('円', "jpy"),
    ('元', "cny"),
    ('원', "krw"),
];

/// Signs of more than one character, read before the one-character ones
/// (`R$` is not `$`).
pub(super) const WORD_SIGNS: &[(&str, &str)] =
    &[("R$", "brl"), ("US$", "usd"), ("C$", "cad"), ("A$", "aud"), ("HK$", "hkd")];

/// Each currency word, with its currency's code (`pounds` is read as money).
pub(super) const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("usd", "usd"),
    ("eur", "eur"),
    ("gbp", "gbp"),
    ("jpy", "jpy"),
    ("chf", "chf"),
    ("cad", "cad"),
    ("aud", "aud"),
    ("inr", "inr"),
    ("cny", "cny"),
    ("krw", "krw"),
    ("sek", "sek"),
    ("nok", "nok"),
    ("dkk", "dkk"),
    ("mxn", "mxn"),
    ("brl", "brl"),
    ("pln", "pln"),
    ("czk", "czk"),
    ("huf", "huf"),
    ("zar", "zar"),
    ("hkd", "hkd"),
    ("sgd", "sgd"),
    ("nzd", "nzd"),
    ("uah", "uah"),
    ("zł", "pln"),
    ("kr", "kr"),
    ("руб", "rub"),
    ("reais", "brl"),
    ("dollars", "usd"),
    ("dollar", "usd"),
    ("euros", "eur"),
    ("euro", "eur"),
    ("pounds", "gbp"),
    ("yen", "jpy"),
    // The codes and the local names users write beside an amount (the
    // codes that are English words, `try` and `php`, are left out: `try 5`
    // is no amount).
    ("idr", "idr"),
    ("myr", "myr"),
    ("thb", "thb"),
    ("sar", "sar"),
    ("aed", "aed"),
    ("egp", "egp"),
    ("ils", "ils"),
    ("vnd", "vnd"),
    ("ngn", "ngn"),
    ("pkr", "pkr"),
    ("bdt", "bdt"),
    ("rp", "idr"),
    ("rupiah", "idr"),
    ("rm", "myr"),
    ("ringgit", "myr"),
    ("kč", "czk"),
    ("tl", "try"),
    ("lira", "try"),
    ("đ", "vnd"),
    ("đồng", "vnd"),
    ("rs", "inr"),
    ("रु", "inr"),
    ("रुपये", "inr"),
    ("rupees", "inr"),
    ("บาท", "thb"),
    ("baht", "thb"),
    ("درهم", "aed"),
    ("دراهم", "aed"),
    ("د.إ", "aed"),
    ("dirhams", "aed"),
    ("ر.س", "sar"),
    ("ريال", "sar"),
    ("riyals", "sar"),
    ("ج.م", "egp"),
    ("جنيه", "egp"),
    ("שקל", "ils"),
    ("שקלים", "ils"),
    ("shekels", "ils"),
];

/// The marks written in two words, with their codes.
pub(super) const TWO_WORD_MARKS: &[(&str, &str, &str)] =
    &[("per", "cent", PERCENT_CODE), ("us", "dollars", "usd"), ("us", "dollar", "usd")];

pub(super) fn sign_code(c: char) -> Option<&'static str> {
    CURRENCY_SIGNS.iter().find(|&&(sign, _)| sign == c).map(|&(_, code)| code)
}

/// A currency sign: any of Unicode's (general category Sc), and the CJK
/// units of [`CURRENCY_SIGNS`]. Asked of every word's first and last
/// character, so it is one match, not a search of the list.
pub(super) fn is_currency_sign(c: char) -> bool {
    matches!(c,
        '$' | '¢'..='¥' | '֏' | '؋' | '߾'..='߿' | '৲'..='৳' | '৻' | '૱' | '௹' | '฿' | '៛' | '₠'..='⃀' | '꠸' | '﷼'
        | '﹩' | '＄' | '￠'..='￡' | '￥'..='￦' | '𑿝'..='𑿠' | '𞋿' | '𞲰' | '円' | '元' | '원')
}

pub(super) fn currency_code(word: &str) -> Option<&'static str> {
    let is = matches_word(word);
    CURRENCY_WORDS.iter().find(|&&(known, _)| is(known)).map(|&(_, code)| code)
}

/// A word that names a currency on its own: a currency's word or code, or a
/// sign standing alone (`649 €`, `R$ 649,90`, `4 990 ₽`).
pub(super) fn is_currency_word(word: &str) -> bool {
    let mut chars = word.chars();
    let lone_sign = chars.next().is_some_and(is_currency_sign) && chars.next().is_none();
    lone_sign || currency_code(word).is_some() || WORD_SIGNS.iter().any(|&(sign, _)| sign == word)
}

/// Whether `word` is one of `list` (each in lower case) in any case.
pub(super) fn is_listed(word: &str, list: &[&str]) -> bool {
    list.iter().copied().any(matches_word(word))
}

/// Whether `word` is `known` (lower case) in any case.
pub(super) fn same_word(known: &str, word: &str) -> bool {
    matches_word(word)(known)
}

/// Whether a word in lower case is `word` in any case: `ZŁ` is `zł`,
/// `Марта` is `марта`. An ASCII word, as most are, is compared as it is;
/// another is put in lower case once per lookup, not once per listed word:
/// every fold looks words up in every language's months.
fn matches_word(word: &str) -> impl Fn(&str) -> bool + '_ {
    let lower: Option<String> = (!word.is_ascii()).then(|| word.chars().flat_map(char::to_lowercase).collect());
    move |known| match &lower {
        None => known.eq_ignore_ascii_case(word),
        Some(lower) => known == lower,
    }
}

pub(super) const UNITS: &[&str] = &[
    "mm", "cm", "m", "km", "in", "inch", "inches", "ft", "foot", "feet", "yd", "yards", "mi", "mile", "miles", "kg",
    "g", "mg", "lb", "lbs", "oz", "l", "ml", "liter", "liters", "litre", "litres", "gal", "gallons", "kb", "mb", "gb",
    "tb", "kib", "mib", "gib", "ms", "s", "sec", "secs", "seconds", "min", "mins", "minutes", "h", "hr", "hrs",
    "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "°c", "°f", "kw", "kwh", "w", "v",
    "mah", "hz", "khz", "mhz", "ghz", "px", "pt",
];

/// Month names as dates write them, before or after the day, in lower
/// case: English (and its abbreviations), French, German, Spanish,
/// Portuguese, Italian, Dutch, Polish and Russian (their genitives, as in
/// `3 марта`, `3 marca`), with the abbreviations that name nothing else
/// (`set` and `gen` are English words). Vietnamese writes a month's number
/// (`tháng 3`): `find`'s dates read it.
pub(super) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    // French
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "janv",
    "févr",
    "avr",
    "juil",
    "déc",
    // German
    "januar",
    "jänner",
    "februar",
    "märz",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "mär",
    "okt",
    "dez",
    // Spanish
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "setiembre",
    "octubre",
    "noviembre",
    "diciembre",
    "dic",
    // Portuguese
    "janeiro",
    "fevereiro",
    "março",
    "maio",
    "junho",
    "julho",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
    // Italian
    "gennaio",
    "febbraio",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "settembre",
    "ottobre",
    "dicembre",
    // Polish (the genitive dates write: `3 marca`)
    "stycznia",
    "lutego",
    "marca",
    "kwietnia",
    "maja",
    "czerwca",
    "lipca",
    "sierpnia",
    "września",
    "października",
    "listopada",
    "grudnia",
    // Dutch
    "januari",
    "februari",
    "maart",
    "mei",
    "augustus",
    "mrt",
    // Russian
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
    "январь",
    "февраль",
    "март",
    "апрель",
    "май",
    "июнь",
    "июль",
    "август",
    "сентябрь",
    "октябрь",
    "ноябрь",
    "декабрь",
];

/// Month names read only after a day, as these languages write their dates
/// (`3 Mart 2026`, `3 Maret 2026`, `3 मार्च 2026`, `3 مارس 2026`,
/// `3 במרץ 2026`, `3 มีนาคม 2569`): before a number, `mart` is an English
/// word (`the mart 3 blocks away`).
pub(super) const DAY_FIRST_MONTHS: &[&str] = &[
    // Turkish
    "ocak",
    "şubat",
    "mart",
    "nisan",
    "mayıs",
    "haziran",
    "temmuz",
    "ağustos",
    "eylül",
    "ekim",
    "kasım",
    "aralık",
    // Indonesian (the others are Dutch's or English's)
    "maret",
    "agustus",
    "desember",
    // Hindi
    "जनवरी",
    "फ़रवरी",
    "फरवरी",
    "मार्च",
    "अप्रैल",
    "मई",
    "जून",
    "जुलाई",
    "अगस्त",
    "सितंबर",
    "सितम्बर",
    "अक्टूबर",
    "अक्तूबर",
    "नवंबर",
    "नवम्बर",
    "दिसंबर",
    "दिसम्बर",
    // Arabic: the months as Egypt and the Gulf write them, and the
    // Levant's names of one word
    "يناير",
    "فبراير",
    "مارس",
    "أبريل",
    "ابريل",
    "مايو",
    "يونيو",
    "يوليو",
    "أغسطس",
    "اغسطس",
    "سبتمبر",
    "أكتوبر",
    "اكتوبر",
    "نوفمبر",
    "ديسمبر",
    "شباط",
    "آذار",
    "نيسان",
    "أيار",
    "حزيران",
    "تموز",
    "آب",
    "أيلول",
    // Hebrew (also after `ב`, "in": `3 במרץ`)
    "ינואר",
    "פברואר",
    "מרץ",
    "מרס",
    "אפריל",
    "מאי",
    "יוני",
    "יולי",
    "אוגוסט",
    "ספטמבר",
    "אוקטובר",
    "נובמבר",
    "דצמבר",
    // Thai
    "มกราคม",
    "กุมภาพันธ์",
    "มีนาคม",
    "เมษายน",
    "พฤษภาคม",
    "มิถุนายน",
    "กรกฎาคม",
    "สิงหาคม",
    "กันยายน",
    "ตุลาคม",
    "พฤศจิกายน",
    "ธันวาคม",
];
