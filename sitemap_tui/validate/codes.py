"""Code lists for hreflang and video:restriction checks.

Extracted once from the IANA language subtag registry (File-Date 2021-08-06) that ships with
`langcodes`: non-deprecated 2-letter languages (ISO 639-1), 4-letter scripts (ISO 15924,
lower-cased) and 2-letter regions that are assigned ISO 3166-1 alpha-2 codes (private-use and
exceptionally reserved codes such as EU, UK, UN removed).
"""

from __future__ import annotations


def _codes(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: ISO 639-1 language codes (185).
ISO639_1: frozenset[str] = _codes(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu "
    "cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi "
    "ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks "
    "ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl "
    "nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg sh si sk "
    "sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz "
    "ve vi vo wa wo xh yi yo za zh zu "
)

#: ISO 15924 script codes, lower-cased (208).
ISO15924: frozenset[str] = _codes(
    "adlm afak aghb ahom arab aran armi armn avst bali bamu bass batk beng bhks blis bopo "
    "brah brai bugi buhd cakm cans cari cham cher chrs cirt copt cpmn cprt cyrl cyrs deva "
    "diak dogr dsrt dupl egyd egyh egyp elba elym ethi geok geor glag gong gonm goth gran "
    "grek gujr guru hanb hang hani hano hans hant hatr hebr hira hluw hmng hmnp hrkt hung "
    "inds ital jamo java jpan jurc kali kana khar khmr khoj kitl kits knda kore kpel kthi "
    "lana laoo latf latg latn leke lepc limb lina linb lisu loma lyci lydi mahj maka mand "
    "mani marc maya medf mend merc mero mlym modi mong moon mroo mtei mult mymr nand narb "
    "nbat newa nkdb nkgb nkoo nshu ogam olck orkh orya osge osma ougr palm pauc pcun pelm "
    "perm phag phli phlp phlv phnx piqd plrd prti psin ranj rjng rohg roro runr samr sara "
    "sarb saur sgnw shaw shrd shui sidd sind sinh sogd sogo sora soyo sund sylo syrc syre "
    "syrj syrn tagb takr tale talu taml tang tavt telu teng tfng tglg thaa thai tibt tirh "
    "tnsa toto ugar vaii visp vith wara wcho wole xpeo xsux yezi yiii zanb zinh zmth zsye "
    "zsym zxxx zyyy zzzz "
)

#: ISO 3166-1 alpha-2 country codes (249).
ISO3166_ALPHA2: frozenset[str] = _codes(
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO "
    "BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ "
    "DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP "
    "GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG "
    "KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML "
    "MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE "
    "PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL "
    "SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM "
    "US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW "
)
