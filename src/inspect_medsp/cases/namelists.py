"""The names lists ``check`` reads a case against: the given and family names of Faker's
locales whose names are written in Latin script (Faker is a maintained MIT package on PyPI;
its lists ship inside it, so nothing is downloaded), the common English words of its English
word list, and the package's own list of capitalised words that are names in some list but
words in a case (``not_names.txt``: months, common words, clinical eponyms, places)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib.resources import files
from types import ModuleType


def _letters(category: str) -> str:
    """Every letter of ``category`` (Lu, Ll) in Latin-1, Latin Extended-A and -B and Latin
    Extended Additional, as the inside of a character class: Łódź, Nguyễn, Ní, Ó."""
    chars = (
        chr(c)
        for start, stop in ((0xC0, 0x250), (0x1E00, 0x1F00))
        for c in range(start, stop)
        if unicodedata.category(chr(c)) == category
    )
    return "".join(re.escape(c) for c in chars)


UPPER, LOWER = "A-Z" + _letters("Lu"), "a-z" + _letters("Ll")
"""Capital and small Latin letters, any Latin script (a character class's inside)."""
_UP, _LOW = UPPER, LOWER
NAME_PATTERN = (
    rf"(?:[{_UP}]['\u2019](?=[{_UP}]))?[{_UP}][{_LOW}]+(?:[{_UP}][{_LOW}]+)?"
    rf"(?:-[{_UP}]?[{_LOW}]+)*"
)
"""A capitalised name (O'Brien, MacLeod, Jean-Luc, Rafał, Nguyễn), without a possessive 's."""
NAME = re.compile(NAME_PATTERN)

MIN_LETTERS = 3
"""Shorter listed names (Al, Bo, Jo) are too often words or initials to find by list."""


@lru_cache(maxsize=1)
def not_names() -> frozenset[str]:
    """Capitalised words that names lists know but cases use as something else (months,
    common words, clinical eponyms and scores, places, languages): ``not_names.txt``."""
    text = files("inspect_medsp.cases").joinpath("not_names.txt").read_text(encoding="utf-8")
    return frozenset(
        word for line in text.splitlines() for word in line.split("#")[0].split()
    )


def _listed(provider: type, attr: str) -> list[str]:
    for klass in provider.__mro__:
        value = klass.__dict__.get(attr)
        if isinstance(value, dict):
            return [str(k) for k in value]
        if isinstance(value, tuple | list):
            return [str(v) for v in value]
    return []


def _latin_locales() -> tuple[ModuleType, ...]:
    """Faker's person providers whose names are written in Latin script, one module a locale
    (the list is written once: the modules the import binds, in its order)."""
    from faker.providers.person import (  # noqa: F401  (read back by locals() below)
        az_AZ,
        cs_CZ,
        da_DK,
        de_AT,
        de_CH,
        de_DE,
        de_LI,
        de_LU,
        en,
        en_GB,
        en_IE,
        en_IN,
        en_KE,
        en_NG,
        en_NZ,
        en_PK,
        en_TH,
        en_US,
        es_AR,
        es_CA,
        es_CL,
        es_CO,
        es_ES,
        es_MX,
        et_EE,
        fi_FI,
        fr_BE,
        fr_CA,
        fr_CH,
        fr_DZ,
        fr_FR,
        ga_IE,
        ha_NG,
        hr_HR,
        hu_HU,
        id_ID,
        ig_NG,
        is_IS,
        it_IT,
        lt_LT,
        lv_LV,
        nl_BE,
        nl_NL,
        no_NO,
        pl_PL,
        pt_BR,
        pt_PT,
        ro_RO,
        sk_SK,
        sl_SI,
        sv_SE,
        sw,
        tr_TR,
        tw_GH,
        uz_UZ,
        vi_VN,
        yo_NG,
        zh_CN,
        zh_TW,
        zu_ZA,
    )

    return tuple(locals().values())


def _provider_names(attrs: tuple[str, ...]) -> frozenset[str]:
    locales = _latin_locales()
    found: set[str] = set()
    for locale in locales:
        for attr in attrs:
            for full in _listed(locale.Provider, attr):
                for token in full.split():
                    if len(token) >= MIN_LETTERS and NAME.fullmatch(token):
                        found.add(token)
    return frozenset(found)


@lru_cache(maxsize=1)
def listed_names() -> tuple[frozenset[str], frozenset[str]]:
    """Every given and every family name in Latin script of Faker's locales, as listed."""
    given = _provider_names(
        (
            "first_names",
            "first_names_male",
            "first_names_female",
            "first_names_nonbinary",
            "first_romanized_names",
        )
    )
    return given, _provider_names(("last_names", "last_romanized_names"))


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Capitalised common English words (Faker's English word list) and :func:`not_names`."""
    from faker.providers.lorem.en_US import Provider as Lorem

    return frozenset({w.capitalize() for w in Lorem.word_list} | not_names())


