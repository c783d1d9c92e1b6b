"""The curated commonsense file (:mod:`llm_planner.domains.household.world.commonsense`) grounded onto a scene.

The file speaks in general words ("pantry", "dining table", "closet"); a scene names its own
furniture. :class:`SceneKnowledge` gives every furniture the weights of the general places it
resembles (its name, numbered or with a room or position word; an alias; the same head noun;
Sentence-BERT cosine, a small bonus when the usual room matches), so the offline backend can
answer "where is a <type> usually?" for any apartment, from names only.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.kinds import furniture_forms
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.commonsense import Commonsense, load_commonsense
from llm_planner.domains.household.world.scene import CONTAINER
from llm_planner.domains.household.world.words import name_to_text

if TYPE_CHECKING:
    from llm_planner.llm.resources import Resources

ROOM_BONUS = 0.05


@dataclass(frozen=True)
class PlaceLink:
    """One general place of the commonsense file standing for one scene furniture: the furniture
    gets ``factor`` times the place's weight for every object (LLM-MCTS §2.2: the world model names
    places in general words; they are grounded onto the apartment's own receptacles)."""

    place: str
    furniture: str
    factor: float
    how: str        # why: "its name", "its name without 'left'", "an alias", "the same head noun 'table'", ...
    score: float    # the Sentence-BERT cosine (1.0 for a name)
    stand_in: bool = False  # the apartment has nothing of this kind; this furniture stands in for it


class SceneKnowledge:
    """The commonsense file seen through one scene's names (computed once per scene).

    Every furniture takes the weights of the general place(s) it resembles (:meth:`_links`): by
    name (also numbered, with a room or position word: both nightstands, every sink), by an alias
    of the file, by the same head noun as a place (every table) or by Sentence-BERT similarity,
    weighted by similarity; whether an object goes INSIDE or ON it is the scene's kind, never the
    file's. A general place nothing in the apartment resembles is stood in for by its ``like``
    places or the most similar furniture. Furniture that resembles no place keeps the floor
    probability (App. C.2) and is still searched."""

    def __init__(self, commonsense: Commonsense, world: WorldInfo, grounder: Grounder, place_match: float,
                 type_match: float, kind_match: float | None = None, kind_margin: float = 0.05,
                 room_match: float = 0.7) -> None:
        self.commonsense = commonsense
        self.world = world
        self.grounder = grounder
        self.place_match = place_match
        self.type_match = type_match
        self.kind_match = place_match if kind_match is None else kind_match
        self.kind_margin = kind_margin
        self.room_match = room_match
        self.links = self._links()
        self.place_map = self._best_per_place()
        self._type_cache: dict[str, str | None] = {}

    # ------------------------------------------------------------------ places
    def _room_bonus(self) -> dict[tuple[str, str], float]:
        """(general room, scene room) -> ROOM_BONUS when they are the same room under any name."""
        general = sorted({room for _, room in self.commonsense.places.values() if room})
        rooms = sorted(set(self.world.furniture_room.values()))
        if not general or not rooms:
            return {}
        sims = self.grounder.similarities([name_to_text(g) for g in general], [name_to_text(r) for r in rooms])
        return {(g, r): ROOM_BONUS for i, g in enumerate(general) for j, r in enumerate(rooms)
                if g == r or float(sims[i, j]) >= self.room_match}

    def _links(self) -> list[PlaceLink]:
        furniture = list(self.world.furniture)
        if not furniture:
            return []
        cs = self.commonsense
        general = list(cs.places)
        words: dict[str, tuple[str, str]] = {}  # word -> (place, how)
        for place in general:
            words[place] = (place, "")
        for place, aliases in cs.place_aliases.items():
            for w in aliases:
                words.setdefault(w, (place, f"an alias of '{place}'"))
        heads: dict[str, list[str]] = {}
        for place in general:
            heads.setdefault(place.split()[-1], []).append(place)
        rooms = list(self.world.rooms)
        sims = self.grounder.similarities([name_to_text(p) for p in general], [name_to_text(f) for f in furniture])
        bonus = self._room_bonus()
        links: list[PlaceLink] = []
        for j, f in enumerate(furniture):
            forms = furniture_forms(f, rooms)
            room = self.world.furniture_room.get(f, "")
            direct = None
            for k, form in enumerate(forms):
                if form in words:
                    place, how = words[form]
                    said = "its name" if k == 0 else f"its name read as '{form}'"
                    direct = PlaceLink(place, f, 1.0, f"{said}, {how}" if how else said, 1.0)
                    if how and k == 0:
                        direct = PlaceLink(place, f, 1.0, f"its name is {how}", 1.0)
                    break
            if direct is not None:
                links.append(direct)
                continue
            scored = {p: float(sims[i, j]) + bonus.get((cs.places[p][1], room), 0.0) for i, p in enumerate(general)}
            head = forms[-1]
            same_head = [p for p in heads.get(head, ()) if scored[p] >= self.place_match]
            if same_head:
                candidates = same_head
                how = f"the same head noun '{head}'"
            else:
                candidates = [p for p, s in scored.items() if s >= self.kind_match]
                how = "similar"
            if not candidates:
                continue
            best = max(scored[p] for p in candidates)
            for p in sorted(candidates, key=lambda p: -scored[p]):
                if scored[p] >= best - self.kind_margin:
                    links.append(PlaceLink(p, f, round(scored[p] / best, 3), f"{how} (cosine {scored[p]:.2f})",
                                           scored[p]))
        covered = {link.place for link in links}
        by_place = {p: [link.furniture for link in links if link.place == p] for p in covered}
        for i, place in enumerate(general):
            if place in covered:
                continue
            stand = next((o for o in cs.like[place] if o in by_place), None)
            if stand is not None:
                links.extend(PlaceLink(place, f, 1.0, f"stands in for '{place}' (like '{stand}')", 1.0, True)
                             for f in by_place[stand])
                continue
            kind, room = cs.places[place]
            match: str | None = None
            match_score = -1.0
            for j, f in enumerate(furniture):
                if (f in self.world.containers) != (kind == CONTAINER):
                    continue
                score = float(sims[i, j]) + bonus.get((room, self.world.furniture_room.get(f, "")), 0.0)
                if score > match_score:
                    match, match_score = f, score
            if match is not None and match_score >= self.kind_match:
                links.append(PlaceLink(place, match, 1.0, f"stands in for '{place}' (cosine {match_score:.2f})",
                                       match_score, True))
        return links

    def _best_per_place(self) -> dict[str, str]:
        """General place -> the one furniture that resembles it most (for messages and tests)."""
        out: dict[str, PlaceLink] = {}
        for link in self.links:
            if link.place not in out or (link.factor, link.score) > (out[link.place].factor, out[link.place].score):
                out[link.place] = link
        return {p: link.furniture for p, link in out.items()}

    def weight_sources(self) -> dict[str, list[PlaceLink]]:
        """Scene furniture -> the general places its prior weight comes from (empty: only the floor)."""
        out: dict[str, list[PlaceLink]] = {f: [] for f in self.world.furniture}
        for link in self.links:
            out[link.furniture].append(link)
        return out

    def describe_source(self, furniture: str) -> str:
        """One line saying where a receptacle's prior weight comes from (``scene check``)."""
        links = self.weight_sources().get(furniture, [])
        kind = "container" if furniture in self.world.containers else "surface"
        if not links:
            return ("resembles no place of the commonsense file: only the floor probability for every object "
                    "(the robot still searches it, last)")
        own = [link for link in links if not link.stand_in]
        stand = [link for link in links if link.stand_in]
        parts = []
        if own:
            parts.append(" + ".join(f"'{link.place}'" + (f" x{link.factor:.2f}" if link.factor < 1 else "")
                                    for link in own)
                         + f" ({own[0].how})")
        if stand:
            parts.append("also stands in for " + ", ".join(f"'{link.place}'" for link in stand)
                         + " (none in this apartment)")
        mismatch = [link.place for link in own if self.commonsense.places[link.place][0] != kind]
        tail = f"; objects go {'inside' if kind == 'container' else 'on'} it (a {kind} here" + (
            f", the file says {self.commonsense.places[mismatch[0]][0]})" if mismatch else ")")
        return "; ".join(parts) + tail

    def known_type(self, obj_type: str) -> str | None:
        """The commonsense entry for a scene type: exact, alias, else the most similar entry."""
        if obj_type in self._type_cache:
            return self._type_cache[obj_type]
        text = name_to_text(obj_type)
        index = self.commonsense.alias_index()
        found = index.get(text)
        if found is None:
            match = self.grounder.ground_name(text, list(self.commonsense.objects), self.type_match)
            found = match.name if match else None
        self._type_cache[obj_type] = found
        return found

    def place_weights(self, obj_type: str) -> dict[str, float]:
        """Scene furniture -> weight for a scene object type (empty when common sense has no idea)."""
        entry = self.known_type(obj_type)
        if entry is None:
            return {}
        weights = self.commonsense.objects[entry]
        out: dict[str, float] = {}
        for link in self.links:
            weight = weights.get(link.place)
            if weight is not None:
                out[link.furniture] = out.get(link.furniture, 0.0) + weight * link.factor
        return out


def scene_knowledge(resources: Resources, world: WorldInfo) -> SceneKnowledge:
    """The commonsense file seen through one scene, built once per backend resources and scene."""
    def build() -> SceneKnowledge:
        cfg = resources.config
        return SceneKnowledge(load_commonsense(cfg.get("offline.commonsense")), world, grounder_of(resources),
                              float(cfg.get("offline.commonsense_place_match")),
                              float(cfg.get("offline.commonsense_type_match")),
                              float(cfg.get("offline.commonsense_kind_match")),
                              float(cfg.get("offline.commonsense_kind_margin")),
                              float(cfg.get("offline.commonsense_room_match")))

    return resources.shared(("knowledge", world.fingerprint()), build)
