"""Reading a directive into a goal, with no language model: :func:`read_directive` is the one way in.

* :mod:`.directive_reading`: :func:`read_directive` (the goal a directive asks for),
  :func:`read_answer` (the option an answer to a question picks), and what a directive names
  (:mod:`.mentions`);
* :mod:`.goal_parser`: the grammar of a directive (clauses, relations, pronouns, verbs that imply a
  place, states: :mod:`.states`), with :mod:`.quantities` (counts, negations, self-corrections; the cue words of
  ``data/reader_cues.yaml``) and :mod:`.phrasing` (polite and chatty wrappers);
* the names: :mod:`.names` (object types), :mod:`.places` (furniture) and :mod:`.kinds` (the kind a
  name says, which grounding never swaps);
* :mod:`.goal_support`: a model's goal grounded onto the scene's names and refused where the
  directive's words do not support it.

The language-model layer calls it and it calls no model: the offline backend's translation is
:func:`read_directive`, a model backend keeps the reader's goal where it reads the directive and
has the model's goal checked elsewhere (``llm_planner.translation.translate``), and the nodes ask back
with its questions. It builds on the household's words (``llm_planner.domains.household.world``)
and takes the Sentence-BERT grounder and the configuration from the backend's resources.
"""
from llm_planner.reading.directive_reading import read_answer, read_directive
from llm_planner.reading.goal_parser import scene_names
from llm_planner.reading.goal_support import UnsupportedGoal, check_model_goal, compare, ground_goal
from llm_planner.reading.names import SceneNames
from llm_planner.reading.phrasing import normalize
from llm_planner.reading.quantities import NUMBERS

__all__ = ["NUMBERS", "SceneNames", "UnsupportedGoal", "check_model_goal", "compare", "ground_goal", "normalize",
           "read_answer", "read_directive", "scene_names"]
