/* mergesplit — the solver plugin ABI, version 1.
 *
 * A plugin is a shared object that exports one function,
 *
 *     const struct ms_plugin *mergesplit_plugin(uint32_t index);
 *
 * returning one solver descriptor per index (0, 1, ...) and NULL past the
 * last.  One file may therefore hold several solvers.  The key words MUST,
 * MUST NOT, SHOULD and MAY are used as in RFC 2119.
 *
 * VERSIONING
 *   A descriptor starts with a header that never changes: struct_size,
 *   abi_major, abi_minor.  abi_minor is the lowest minor version of the
 *   core the plugin NEEDS (not the version of the headers it was built
 *   with): a plugin built against the 1.1 headers that uses nothing of 1.1,
 *   or uses it only when present, declares 0 and still loads in a 1.0
 *   core.  The core refuses a plugin whose major differs from its own,
 *   whose needed minor is newer than its own, or whose struct_size is
 *   smaller than the v1.0 descriptor; it never reads a field past
 *   struct_size, so a member appended in a later minor is simply absent
 *   (NULL) for a core or a plugin that predates it.  A minor version may
 *   only append members (to ms_plugin, ms_host or the size-prefixed
 *   structs below) and status codes; anything else is a new major.
 *   A plugin learns what the core offers from host->abi_minor and from
 *   the struct_size of what it is handed (MS_HOST_HAS, MS_HAS).
 *
 *   1.0  the step protocol, meta-particles, save/load.
 *   1.1  the momentum-conserving synchronisation and collective response
 *        (meta_inertia, meta_response, metas->inertia,
 *        MS_PLUGIN_INERTIA_TENSOR), MS_PLUGIN_META_OWN_MASS, energy(),
 *        particle hand-over (hand_over, release, accept).
 *   1.2  the members' spin a merge and split take, handed back to the
 *        systems that answer for the meta-particle (host->meta_spin).
 *   1.3  heat: temperature exchanged between touching particles of
 *        different systems (MS_PLUGIN_HEAT, write point W3).
 *   1.4  receivers declared at create() and checked before the run
 *        (host->declare_receiver).
 *   1.5  forces on other systems' particles (push(): a liquid's pressure
 *        on a body immersed in it).
 *   1.6  starting from a previous output: shapes of type "frame" and the
 *        per-particle values they carry (host->shape_field).
 *   1.7  surfaces in the output: the triangles that join a system's
 *        particles into a sheet or a body's skin (surface()).
 *   1.8  derived fields brought up to date only when they are read
 *        (refresh()).
 *
 * LIFECYCLE AND THE STEP PROTOCOL
 *   create -> { max_dt -> filter_pairs -> begin_step -> integrate(stage 1)
 *               [-> rewind -> integrate(stage 2)]...
 *               [-> meta_response] [-> rewind -> integrate -> meta_response]...
 *               -> end_step }* -> destroy
 *   The bracketed repeats after the last stage are coupling iterations
 *   (coupling.iterations, momentum rule): the core rewinds the systems of
 *   its multi-system meta-particles and integrates them again with the
 *   same meta-particles, each starting at the velocity it is given (the
 *   merged velocity plus the other systems' effect), until their results
 *   agree.  A plugin needs nothing new for it: rewind and integrate as in
 *   stage 2.
 *   Stage 2 rewinds and integrates again only the systems it could
 *   change: a system with no meta-particle in stage 1 nor in stage 2, and
 *   no force pushed on it by another system (push()), would integrate
 *   with the same inputs, so its stage-1 result stands and it sees
 *   neither call.  A plugin MUST NOT count on a rewind in every step that
 *   has a stage 2.
 *   save/load happen only between steps (never between begin_step and
 *   end_step).  view() may be called at any time except inside another call.
 *
 *   The core writes into the plugin's arrays at exactly two points, and only
 *   the "position" and "velocity" fields:
 *     W1  after the last integrate of a step and before end_step: the final
 *         position and velocity of every member of a meta-particle;
 *     W2  between end_step and the next begin_step: velocities (impulse-based
 *         collision response and similar).
 *   and, for a plugin with MS_PLUGIN_HEAT (ABI 1.3), at a third, and only
 *   the "temperature" field:
 *     W3  between end_step and the next begin_step (HEAT below).
 *   A plugin MUST take the view's position and velocity (and temperature)
 *   as the truth at begin_step and at end_step.
 *
 * META-PARTICLES
 *   Colliding particles are merged into meta-particles for one step.  Inside
 *   integrate, a meta-particle is ONE particle of the plugin's system: its
 *   members move rigidly with one shared velocity (starting from the merged
 *   velocity given), its mass is metas->mass (the whole meta-particle's
 *   mass, members of other systems included, plus what other systems state
 *   as collective inertia, below), forces on its members (evaluated at the
 *   members' real positions) are summed onto it, gravity (the scene's)
 *   acts on its whole mass.  Implicit solvers assemble it as one node.
 *   When integrate returns, for every meta-particle k and each of its members
 *   i: velocity[i] == result->velocity[k] and position[i] == (position of i
 *   at begin_step) + result->displacement[k], exactly.
 *
 * SYNCHRONISATION (what the core does with the results)
 *   For a meta-particle spanning several systems, let v be its merged start
 *   velocity, g the scene's gravity, v^s the end velocity system s reported
 *   and m_s the inertia it integrated the meta-particle with.  System s
 *   gave it the impulse J_s = m_s (v^s - v - g dt) and its other particles
 *   the reaction -J_s.  With coupling.sync = "momentum" (the default of a
 *   1.1 core) the meta-particle receives every J_s in full:
 *       Mc (V - v - g dt) = sum_s (m_s + C_s) (v^s - v - g dt),
 *       Mc = M 1 + sum_s C_s   (M: its mass, C_s: collective inertia),
 *   which conserves linear momentum exactly; without collective inertia
 *   V = v + g dt + sum_s (v^s - v - g dt).  coupling.sync = "paper" takes
 *   the mass-weighted mean of the v^s instead (the paper's Eq. 17, the only
 *   rule of a 1.0 core), which loses or creates momentum when solvers
 *   exert internal forces on the meta-particle.  Every member is then
 *   displaced by dt V and split (paper Eqs. 8-16).  A meta-particle one
 *   system LEADS (collective response, below) ends as that system says.
 *   doc/sync.md in the source tree derives all of it.
 *
 * COLLECTIVE RESPONSE (ABI 1.1)
 *   Over a step a member may be held by much more of its system than
 *   itself: a rigid body's particle moves with the whole body, a particle
 *   of a stiff implicit cluster with the cluster.  Another system that
 *   sees only the member's mass answers the body as if it were that one
 *   particle (a box resting on a cloth sinks through it).  A system states
 *   this in meta_inertia(): for every meta-particle, the inertia C_s [kg],
 *   a symmetric positive semidefinite 3x3 tensor, that the rest of the
 *   system adds to its members over the step (0: none; a rigid body
 *   touching through n meta-particles: about its mass / n).  The core
 *   hands every OTHER system the meta-particle with C_s added to its
 *   inertia: metas->inertia (tensor) for plugins that set
 *   MS_PLUGIN_INERTIA_TENSOR, metas->mass (whole mass + trace/3 of the
 *   others' C) for all.  After every system has integrated it calls
 *   meta_response() once per pass, before splitting, for each meta-particle the
 *   system stated a nonzero C_s for, in one of two roles:
 *     LEAD  (lead[k] = 1) the system is the only one of the meta-particle
 *           that stated collective inertia, none constrained it, and it
 *           integrated with metas->mass (not MS_PLUGIN_META_OWN_MASS);
 *           also when it is alone in the meta-particle (G = 0: it ends as
 *           the part that holds it moves).
 *           impulse[k] is G = sum over the OTHER systems r of
 *           m_r (v^r - v - g dt), the impulse their forces gave the
 *           meta-particle.  The plugin MUST take every G onto itself with
 *           the meta-particles glued as in integrate() (a rigid body: all
 *           of them at once, into its linear and angular momentum, so its
 *           contacts stay rigid with it) and write each meta-particle's end
 *           velocity and displacement; the core splits and writes W1 from
 *           them.  The system's total momentum then changes by exactly
 *           sum G (plus gravity), which the others lost.
 *     FOLLOW (lead[k] = 0) several systems stated inertia (or one
 *           constrained the result): the core synchronised the meta-
 *           particle as above (velocity[k] = V), and impulse[k] is
 *           K_s = C_s (V - v^s).  The plugin MUST add K_s to the part of
 *           itself it counted in C_s, so that part follows V.
 *   Either way momentum is conserved exactly if the plugin does what its
 *   role says.  A plugin that states no collective inertia is never
 *   called back and behaves exactly as under a 1.0 core.
 *
 * MEMBERS' SPIN (ABI 1.2)
 *   Merging gives the members one velocity; splitting gives them back a
 *   part of their motion relative to each other.  Momentum is kept, but
 *   of the members' angular momentum about their centre c,
 *       S = sum_i m_i (x_i - c) x (v_i - v),
 *   the cycle keeps only what the split restores: it takes
 *       D = S(start of the step) - S(after the split)
 *   (members of every system; they all move by one displacement, so c and
 *   x_i - c are those of either moment).  For a meta-particle that
 *   systems FOLLOW, D also holds back what the partitioned step gave the
 *   meta-particle's moment beyond the impulses' moments (each system moved
 *   it to its own place; doc/sync.md section 7).  During end_step() the host's
 *   meta_spin() hands D to the systems that answer for the meta-particle,
 *   in shares summing to D: all of it to a system alone in the meta-
 *   particle or to its LEAD; otherwise to each system that stated
 *   collective inertia, in proportion to the trace of its C_s; to no one
 *   when none did.  A plugin whose counted part can hold angular momentum
 *   (a rigid body) SHOULD add its share there (L += share, P unchanged):
 *   then a contact between such parts keeps the total angular momentum.
 *   One that cannot hold it (point masses) ignores it and loses its share,
 *   as under a 1.1 core.  doc/sync.md section 7 derives it.
 *
 * PARTICLE HAND-OVER (ABI 1.1)
 *   A system may give particles to another system of the scene (a solid
 *   particle that melts becomes a fluid's).  Between two steps, before
 *   filter_pairs and begin_step, the core asks every system that has
 *   hand_over(), in the scene's order, which particles it gives away now
 *   and to which system (by the scene's system name).  It copies them out
 *   of the giver's view, every field packed (stride = element size, the
 *   giver's field order), and calls accept() of each receiving system once,
 *   receivers in the scene's order, particles in the giver's index order;
 *   then release() of the giver with the same list.  Every view is asked
 *   again afterwards.
 *     giver     hand_over() MUST NOT change the state (the run may stop
 *               there); the indices MUST be valid and strictly increasing.
 *               After release() exactly those particles are gone; the
 *               others SHOULD keep their order.
 *     receiver  accept() MUST append the particles at the end of its view,
 *               in the order given, with mass, position and velocity bit
 *               for bit as given: mass and momentum are then conserved
 *               exactly.  It SHOULD take the other fields it knows by name
 *               and type (e.g. "temperature") and ignore the rest; it MAY
 *               set its own radius.  It MAY refuse particles it cannot take
 *               (status and host->set_error()): the run then stops with
 *               that message.
 *   Handing particles to a system without accept(), to an unknown name or
 *   to itself stops the run with one line naming both systems.  From ABI
 *   1.4 a giver SHOULD declare, during create(), every system its scene
 *   section names as a receiver (host->declare_receiver): the core then
 *   refuses a wrong name before the run starts, with the key's file:line,
 *   instead of at the first hand-over (which may come late).  The
 *   hand-over happens at the start of a step, so a frame shows the
 *   particles where the step left them and a checkpoint (written between
 *   steps) is resumed bit-identically.  A descriptor with hand_over MUST
 *   have release.
 *
 * HEAT (ABI 1.3)
 *   A system whose particles carry heat sets MS_PLUGIN_HEAT and shows two
 *   more fields in its view:
 *     "temperature"    MS_TYPE_F64, 1  [K] (any scale, the same for every
 *                                      system of the scene)
 *     "specific_heat"  MS_TYPE_F64, 1  [J/(kg K)], > 0 and finite
 *   A particle holds the heat C T, C = m c (mass times specific heat).  At
 *   the start of every step, after the hand-over and before begin_step
 *   (W3), the core lets heat flow between touching particles of different
 *   such systems: every pair in contact (closer than the sum of their radii,
 *   at the positions the step starts from), one pair after the other in the
 *   canonical order of the contact search, with the conductance G [W/K] the
 *   scene gives (coupling.conductance), moves
 *       Q = (T_i - T_j) (1 - exp(-G dt (1/C_i + 1/C_j))) / (1/C_i + 1/C_j)
 *   from i to j: T_i -= Q / C_i, T_j += Q / C_j.  That is the exact
 *   solution of the pair alone over dt: no temperature overshoots whatever
 *   dt is, and the sum of C T is kept to rounding.  doc/heat.md derives it.
 *   A plugin with MS_PLUGIN_HEAT
 *     MUST show both fields whenever it sets the flag (the core refuses the
 *          view otherwise), keep specific_heat > 0 and finite, and keep C
 *          fixed over a step (the heat the core moved stays moved);
 *     MUST take the temperature in the view as the truth at begin_step: a
 *          rewind snapshot taken there holds the exchange;
 *     SHOULD save and load the temperature with the rest of its state, and
 *          give a particle it hands over its temperature and specific heat
 *          (PARTICLE HAND-OVER: the receiver takes fields it knows by name),
 *          so heat moves with the particle.
 *   Conduction inside the system, heat sources and sinks are the plugin's.
 *   energy() does not count heat: the core reports the sum of C T of every
 *   heat-carrying system on its own.  The flag needs nothing past 1.0 to
 *   load: a core older than 1.3 ignores it and exchanges no heat.
 *
 * FORCES ON OTHER SYSTEMS (ABI 1.5)
 *   Merging and splitting couple systems where their particles touch.  A
 *   liquid also presses on a body it surrounds over the body's whole
 *   volume (buoyancy): the pressure force on a body is the integral of
 *   -grad p over it, which contacts at its surface cannot give (a box of
 *   half the water's density sinks in a grid fluid that answers only
 *   through meta-particles).  A system that has push() states such
 *   forces.  In every stage the core integrates the systems that have
 *   push() first, in the scene's order; then, for each of them and each
 *   system WITHOUT push(), it calls push(inst, step, system, force,
 *   count): `system` is the receiver's index in the scene, `count` its
 *   particles at the step's start, `force` 3 * count doubles the plugin
 *   ADDS to (never overwrites) the force [N] it exerts on each of them
 *   over the step.  The receiver's integrate() of that stage gets the sum
 *   in step->external_force (with the baselines' contact forces, if
 *   any); coupling iterations within the stage reuse it.
 *   A plugin with push()
 *     MUST only add finite values (the core refuses the step otherwise,
 *          naming the system), and only forces of its own material:
 *          gravity is the receiver's to apply;
 *     MUST compute them from the state of the step's start (positions
 *          from host->system_particles(); velocities and masses from
 *          host->system_view() read in begin_step, when no system has
 *          moved yet), so the forces do not depend on the order of the
 *          systems or on the thread count;
 *     SHOULD give its own particles the opposite impulse over the step
 *          (a pressure projection that counts the others' mass does):
 *          momentum is then conserved, up to what walls take.
 *   Systems with push() receive no pushed forces.  The core keeps no
 *   state of it between steps: a checkpoint resumes bit-identically.  A
 *   core older than 1.5 never calls push(); the plugin then behaves as if
 *   it had none.  doc/buoyancy.md in the source tree derives the FLIP
 *   plugin's use of it.
 *
 * SURFACES (ABI 1.7)
 *   A cloth is a sheet and a body has a skin, but a view is a set of
 *   points.  A system whose particles form a surface MAY say so with
 *   surface(): the core calls it right after view() whenever it writes a
 *   frame, and writes the triangles with the particles (polygons of the
 *   .vtp file, faces of the .ply and .obj files), so a viewer shows a
 *   sheet.  The plugin fills *out (the core sets struct_size and zeroes
 *   the rest):
 *     count      the number of triangles (0: none this frame);
 *     triangles  3 * count particle indices, each < the view's count,
 *                MUST stay valid and unchanged as long as the view does;
 *                each triangle SHOULD list its corners counter-clockwise
 *                seen from the side it faces (a body's outside, the side
 *                a sheet's "normal" field points to).
 *   surface() MUST NOT change the state.  The core refuses a triangle that
 *   names a particle past the view's count, naming the system, and keeps
 *   no surface between frames.  A core older than 1.7 never calls it;
 *   the output then holds the particles alone.
 *
 * DERIVED FIELDS (ABI 1.8)
 *   Some fields of a view are derived from the state rather than part of
 *   it: a fluid's density and pressure are sums over neighbours at the
 *   current positions.  Computing them in end_step costs a pass per step
 *   even on steps whose view nobody reads but the core, which reads only
 *   position, velocity, mass, radius (and temperature and specific_heat
 *   under HEAT) between steps.  A plugin with refresh() MAY leave its other
 *   fields stale after end_step and bring them up to date in refresh(),
 *   or in the next integrate() if that comes first, so the pass is made
 *   once per step, inside the step.  The core calls refresh() before it
 *   reads any other field of the view or hands the view to anyone who may:
 *   before every frame's energy() and output, before ms_sim_view() and
 *   ms_sim_field() return, before it packs the view for a hand-over or a
 *   transfer between ranks, and before save().  The plugin:
 *     MUST leave after refresh() every field as end_step would have left
 *          it had it computed them there, bitwise;
 *     MUST NOT change the position, velocity, mass, radius, temperature
 *          or specific_heat fields, nor what the next integrate() will
 *          compute (it may fill what integrate() would otherwise fill
 *          itself): a run with refresh() called after every step and one
 *          with it called only at frames are the same run, bitwise;
 *     MUST keep the view's count and field pointers (view() is not asked
 *          again);
 *     SHOULD make a refresh() on fields already current cost nothing.
 *   A core older than 1.8 never calls it: such a plugin SHOULD then keep
 *   its fields current at end_step (read host->abi_minor).
 *
 * THREADING
 *   The core calls one instance from one thread at a time; different
 *   instances MAY be called concurrently.  A plugin MAY use OpenMP (or its
 *   own threads) inside a call and SHOULD use at most host->thread_count()
 *   threads.  A plugin MUST NOT keep global mutable state shared between
 *   instances.
 *
 * ERRORS AND OUTPUT
 *   Every function returns MS_OK or a negative MS_E* status (status.h) and
 *   SHOULD explain a failure with host->set_error().  A plugin MUST NOT
 *   print, MUST NOT abort or exit the process, and MUST NOT install signal
 *   handlers.  After a failed call the only calls the core makes are
 *   view() and destroy().
 *
 * MEMORY
 *   Whoever allocates frees.  Everything the core passes in is borrowed for
 *   the duration of the call unless stated otherwise; everything the plugin
 *   returns (descriptor, strings, views) is owned by the plugin.
 */
#ifndef MERGESPLIT_PLUGIN_H
#define MERGESPLIT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <mergesplit/host.h>
#include <mergesplit/status.h>
#include <mergesplit/view.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MS_ABI_MAJOR 1
#define MS_ABI_MINOR 8

/* Name of the exported entry function. */
#define MS_PLUGIN_ENTRY_SYMBOL "mergesplit_plugin"

#if defined(_WIN32)
#define MS_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define MS_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define MS_PLUGIN_EXPORT
#endif

/* One solver instance (a system of the scene).  Defined by the plugin, which
 * casts its own state to and from this type; opaque to the core. */
typedef struct ms_instance ms_instance;

enum ms_plugin_flag {
  /* The system's particles collide with each other through the core unless
   * the scene says `self_collision = false` (solids).  Without this flag
   * self-collision is off unless the scene turns it on (fluids, whose own
   * forces keep particles apart). */
  MS_PLUGIN_SELF_COLLISION = 1u << 0,
  /* ABI 1.1: integrate() moves every meta-particle with the inertia tensor
   * metas->inertia instead of the scalar metas->mass.  The two differ only
   * when another system states collective inertia; the core needs to know
   * which one the result answers to. */
  MS_PLUGIN_INERTIA_TENSOR = 1u << 1,
  /* ABI 1.1: integrate() weighs each meta-particle's members with their
   * own masses (a grid solver's transfer: see mergesplit-plugin(7)), so
   * its result carries the impulse own_mass (v^s - v - g dt), not
   * mass (v^s - v - g dt); the core weighs it so.  Without the flag a
   * grid solver that does this creates momentum under the momentum
   * rule. */
  MS_PLUGIN_META_OWN_MASS = 1u << 2,
  /* ABI 1.3: the view carries "temperature" and "specific_heat"; the core
   * exchanges heat with the other systems' touching particles (HEAT). */
  MS_PLUGIN_HEAT = 1u << 3
};

/* The step being taken.  Owned by the core, valid during the call. */
struct ms_step {
  uint32_t struct_size;
  uint32_t stage;   /* 1, or 2 when the step is integrated again */
  uint64_t index;   /* steps taken since the run started */
  double time;      /* simulated time at the start of the step [s] */
  double dt;        /* [s], > 0 */
  /* NULL, or 3 * count forces [N], one per particle of this system, to add
   * over the whole step (baseline collision methods).  Implicit solvers
   * treat them explicitly. */
  const double *external_force;
};

/* The meta-particles this system takes part in.  Owned by the core, valid
 * during integrate().  Each particle is a member of at most one of them. */
struct ms_metas {
  uint32_t struct_size;
  uint32_t count;
  const uint32_t *member_offset; /* count + 1 entries */
  const uint32_t *member;        /* this system's particle indices */
  const double *mass;            /* count: whole meta-particle mass [kg] */
  const double *own_mass;        /* count: mass of this system's members */
  const double *position;        /* 3 * count: centre of mass, all members */
  const double *velocity;        /* 3 * count: merged start velocity */
  /* ---- ABI 1.1 (present when struct_size covers it) ---- */
  /* 6 * count: the inertia tensor [kg] (xx, yy, zz, xy, xz, yz) of each
   * meta-particle in this system: its whole mass times the identity plus
   * the collective inertia the OTHER systems state.  In meta_inertia() it
   * is still the whole mass times the identity. */
  const double *inertia;
};

/* What integrate() reports per meta-particle.  Arrays owned by the core,
 * sized for metas->count; the plugin MUST fill velocity and displacement
 * for every entry.
 *
 * constrained[k] arrives as 0.  A plugin sets it to MS_CONSTRAINED when a
 * constraint of its own dictated the result (a member touching a wall or a
 * kinematic obstacle), and to MS_PINNED when its result is prescribed
 * whole (a member pinned).  For a meta-particle spanning several systems
 * the core then takes the mean result of the systems at the highest of
 * these levels instead of the mass-weighted mean over all systems: a wall
 * or a pin is not averaged away, and a pin not averaged with a wall.
 * The core writes the members' end state (positions, and velocities from
 * the split) to every system; a plugin SHOULD put its pinned particles back
 * on their prescribed path in end_step. */
#define MS_CONSTRAINED 1
#define MS_PINNED 2
struct ms_meta_result {
  uint32_t struct_size;
  uint32_t count;
  double *velocity;     /* 3 * count: end velocity v^s */
  double *displacement; /* 3 * count: displacement of every member */
  uint8_t *constrained; /* count: see above */
};

/* ABI 1.1: collective response, per meta-particle of the system's last
 * integrate() (same order and count as its metas; see COLLECTIVE
 * RESPONSE).  Owned by the core, valid during meta_response(). */
struct ms_meta_response {
  uint32_t struct_size;
  uint32_t count;
  /* count: 1 = LEAD, 0 = FOLLOW; entries the system stated no inertia for
   * are FOLLOW with a zero impulse */
  const uint8_t *lead;
  /* 3 * count [N s]: LEAD: G, the other systems' impulse on the meta-
   * particle; FOLLOW: K_s, the impulse the counted part must take */
  const double *impulse;
  /* 3 * count: LEAD: arrives as the system's own result v^s, the plugin
   * writes the end velocity; FOLLOW: the synchronised V (read only) */
  double *velocity;
  /* 3 * count: LEAD: arrives as the system's own displacement, the plugin
   * writes the members' end displacement; FOLLOW: dt V (read only) */
  double *displacement;
};

/* ABI 1.1: a system's energy [J], filled by energy().  Every figure MUST be
 * finite; kinetic and internal MUST NOT be negative. */
struct ms_energy {
  uint32_t struct_size; /* set by the core */
  uint32_t reserved0;
  /* 1/2 sum m |v|^2 of the particles, plus kinetic energy the solver holds
   * elsewhere (a grid's); what the particles' velocities already carry
   * (a rigid body's rotation) only once */
  double kinetic;
  /* in the scene's gravity: -sum m g . x (zero at the origin) */
  double potential;
  /* stored in the material: stretched springs and bonds, a compressed
   * fluid, ...; 0 for a material that stores none */
  double internal;
};

/* ABI 1.7: the triangles joining a system's particles (surface(),
 * SURFACES above).  The arrays are the plugin's. */
struct ms_surface {
  uint32_t struct_size; /* set by the core */
  uint32_t reserved0;
  size_t count;              /* triangles */
  const uint32_t *triangles; /* 3 * count indices into the view */
};

/* ABI 1.1: the particles a system gives away now (hand_over()).  The core
 * sets struct_size and zeroes the rest; the arrays are the plugin's, valid
 * until its next call. */
struct ms_handover {
  uint32_t struct_size;
  uint32_t count;            /* particles given away now; 0: none */
  const uint32_t *index;     /* count, strictly increasing */
  const char *const *to;     /* count: the receiving system's scene name */
};

/* A byte stream for save/load.  Owned by the core.  write/read return
 * MS_OK or a negative status (short reads are MS_ESTATE). */
struct ms_stream {
  void *opaque;
  int (*write)(void *opaque, const void *data, size_t size);
  int (*read)(void *opaque, void *data, size_t size);
};

struct ms_plugin {
  /* Header: never changes. */
  uint32_t struct_size; /* sizeof(struct ms_plugin) as compiled */
  uint16_t abi_major;   /* MS_ABI_MAJOR */
  uint16_t abi_minor;   /* the minor it needs (VERSIONING) */

  /* ---- ABI 1.0 ---------------------------------------------------- */
  uint32_t flags;       /* enum ms_plugin_flag */
  uint32_t reserved0;   /* 0 */
  const char *id;       /* what scenes name as `solver`; [a-z0-9_]+, unique */
  const char *name;     /* human-readable name */
  const char *version;  /* the plugin's own version, e.g. "1.2.0" */
  const char *license;  /* SPDX identifier */
  const char *description; /* one line */

  /* -- required ----------------------------------------------------- */

  /* Build a system from its scene section.  `host` and `ctx` stay valid
   * until destroy; the plugin MUST read its settings only through the
   * host's cfg_* functions and refuse bad values with cfg_error().  On
   * success *out is set; on failure nothing is leaked. */
  int (*create)(const struct ms_host *host, ms_ctx *ctx,
                const ms_config *section, ms_instance **out);
  /* Free everything.  Called once per successful create, also after a
   * failed call. */
  void (*destroy)(ms_instance *inst);
  /* Describe the particles (view.h).  The core sets out->struct_size. */
  int (*view)(ms_instance *inst, struct ms_view *out);
  /* Start a step: remember all state integrate may change, so rewind can
   * restore it.  MUST NOT change positions or velocities. */
  int (*begin_step)(ms_instance *inst, const struct ms_step *step);
  /* Advance the system by step->dt with the given meta-particles (see
   * above); metas->count may be 0. */
  int (*integrate)(ms_instance *inst, const struct ms_step *step,
                   const struct ms_metas *metas,
                   struct ms_meta_result *result);
  /* Restore the state begin_step remembered, bitwise, so integrate can run
   * again (stage 2, coupling iterations), undoing meta_response too. */
  int (*rewind)(ms_instance *inst);
  /* Finish the step after the core's write W1 (derived quantities, pins,
   * fracture bookkeeping).  The particle count MAY change here. */
  int (*end_step)(ms_instance *inst, const struct ms_step *step);

  /* -- optional (NULL when not provided) ---------------------------- */

  /* Largest stable step for the current state.  *dt arrives as +INFINITY;
   * lower it if needed.  NULL: no limit of the plugin's own. */
  int (*max_dt)(ms_instance *inst, double *dt);
  /* Declare which candidate contact pairs of this system's own particles
   * must NOT collide (e.g. joined by a spring or bond).  pairs holds
   * 2 * count particle indices (i < j); keep[k] arrives as 1; set it to 0 for
   * connected pairs.  Called at most once per step, before begin_step, with
   * the particles as they are at the start of the step; it MUST NOT change
   * them.  NULL: every overlapping pair of the system may collide. */
  int (*filter_pairs)(ms_instance *inst, const uint32_t *pairs, size_t count,
                      uint8_t *keep);
  /* Write / read the whole state (checkpoints).  load() is called on an
   * instance freshly created from the same section; after it, view() is
   * asked again.  A save->load round trip MUST reproduce the state bitwise.
   * NULL: the system cannot be checkpointed. */
  int (*save)(ms_instance *inst, const struct ms_stream *out);
  int (*load)(ms_instance *inst, const struct ms_stream *in);

  /* ---- ABI 1.1 (all optional; NULL or absent past struct_size) ----- */

  /* Collective response (see above).  Called once per integrated stage,
   * after merging and before any integrate() of the stage, with the
   * meta-particles this system takes part in (metas->count may be 0; then
   * it is not called).  inertia holds 6 * metas->count doubles, zeroed;
   * write C_s of meta-particle k at inertia + 6 k.  Each MUST be finite
   * and symmetric positive semidefinite (the core refuses the step
   * otherwise, naming the system).  MUST NOT change the system's state. */
  int (*meta_inertia)(ms_instance *inst, const struct ms_step *step,
                      const struct ms_metas *metas, double *inertia);
  /* Called after every system integrated the step's last stage (and after
   * each coupling iteration's integration; rewind then undoes it) and
   * before the split and the write W1, only when this system stated a
   * nonzero collective inertia in that stage; metas is that stage's.
   * Take the impulses as the role of each meta-particle says (COLLECTIVE
   * RESPONSE above).  Every velocity and displacement written MUST be
   * finite. */
  int (*meta_response)(ms_instance *inst, const struct ms_step *step,
                       const struct ms_metas *metas,
                       const struct ms_meta_response *response);
  /* The system's energy now: called between steps (at the start of the
   * run and at the end of every frame).  The core sets out->struct_size;
   * MUST NOT change the state.  NULL: the core counts the kinetic and
   * gravitational energy of the view's particles and reports the
   * system's internal energy as unknown. */
  int (*energy)(ms_instance *inst, struct ms_energy *out);
  /* Particle hand-over, giving side (PARTICLE HAND-OVER above): list the
   * particles given away now in *out (count 0: none).  MUST NOT change the
   * state. */
  int (*hand_over)(ms_instance *inst, struct ms_handover *out);
  /* Drop the particles of `given` (what hand_over() just listed, which
   * other systems have taken). */
  int (*release)(ms_instance *inst, const struct ms_handover *given);
  /* Receiving side: append `in->count` particles handed over by system
   * `from` (its scene name); in->fields are the giver's fields, packed. */
  int (*accept)(ms_instance *inst, const struct ms_view *in, const char *from);

  /* ---- ABI 1.5 (optional; NULL or absent past struct_size) --------- */

  /* Forces on system `system`'s `count` particles over the step (FORCES
   * ON OTHER SYSTEMS above): add them to `force` (3 * count, [N]).  Called
   * after this system's integrate() of every stage, once per system of
   * the scene without push().  MUST NOT change the state. */
  int (*push)(ms_instance *inst, const struct ms_step *step, uint32_t system,
              double *force, size_t count);

  /* ---- ABI 1.7 (optional; NULL or absent past struct_size) --------- */

  /* The triangles joining the particles of the current view (SURFACES
   * above).  The core sets out->struct_size.  MUST NOT change the state. */
  int (*surface)(ms_instance *inst, struct ms_surface *out);

  /* ---- ABI 1.8 (optional; NULL or absent past struct_size) --------- */

  /* Bring the view's derived fields up to date (DERIVED FIELDS above).
   * Called between steps only, any number of times.  NULL: every field
   * is current after end_step. */
  int (*refresh)(ms_instance *inst);
};

/* Initialiser for the header of a descriptor compiled against this file
 * that needs ABI 1.`minor` of the core (see VERSIONING). */
#define MS_PLUGIN_HEADER_INIT_NEEDS(minor)                           \
  .struct_size = sizeof(struct ms_plugin), .abi_major = MS_ABI_MAJOR, \
  .abi_minor = (minor)
/* The same for a plugin that needs nothing past ABI 1.0 (and uses 1.1
 * members only when the core has them): it loads in every 1.x core. */
#define MS_PLUGIN_HEADER_INIT MS_PLUGIN_HEADER_INIT_NEEDS(0)

/* Nonzero when a size-prefixed struct `s` (a pointer) holds `member`. */
#define MS_HAS(s, type, member) \
  ((s)->struct_size >= offsetof(type, member) + sizeof((s)->member))

/* The entry point every plugin exports.  index 0, 1, ...: one descriptor per
 * solver in the file, then NULL.  The returned descriptor is static and
 * lives as long as the file is loaded. */
MS_PLUGIN_EXPORT const struct ms_plugin *mergesplit_plugin(uint32_t index);

typedef const struct ms_plugin *(*ms_plugin_entry_fn)(uint32_t index);

/* Size of the smallest descriptor the core accepts (ABI 1.0). */
#define MS_PLUGIN_V1_SIZE (offsetof(struct ms_plugin, load) + sizeof(void *))

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    UINTPTR_MAX == UINT64_MAX
/* Frozen v1 layout (LP64). */
_Static_assert(offsetof(struct ms_plugin, flags) == 8, "ms_plugin v1 layout");
_Static_assert(offsetof(struct ms_plugin, id) == 16, "ms_plugin v1 layout");
_Static_assert(offsetof(struct ms_plugin, create) == 56, "ms_plugin v1 layout");
_Static_assert(offsetof(struct ms_plugin, end_step) == 104,
               "ms_plugin v1 layout");
_Static_assert(offsetof(struct ms_plugin, load) == 136, "ms_plugin v1 layout");
_Static_assert(offsetof(struct ms_plugin, meta_inertia) == 144,
               "ms_plugin v1.1 layout");
_Static_assert(offsetof(struct ms_plugin, hand_over) == 168,
               "ms_plugin v1.1 layout");
_Static_assert(offsetof(struct ms_plugin, push) == 192,
               "ms_plugin v1.5 layout");
_Static_assert(offsetof(struct ms_plugin, surface) == 200,
               "ms_plugin v1.7 layout");
_Static_assert(offsetof(struct ms_plugin, refresh) == 208,
               "ms_plugin v1.8 layout");
_Static_assert(sizeof(struct ms_plugin) == 216, "ms_plugin v1.8 size");
_Static_assert(sizeof(struct ms_surface) == 24, "ms_surface v1.7 size");
_Static_assert(sizeof(struct ms_handover) == 24, "ms_handover v1.1 size");
_Static_assert(sizeof(struct ms_step) == 40, "ms_step v1 size");
_Static_assert(offsetof(struct ms_metas, inertia) == 56,
               "ms_metas v1.1 layout");
_Static_assert(sizeof(struct ms_metas) == 64, "ms_metas v1.1 size");
_Static_assert(sizeof(struct ms_meta_response) == 40,
               "ms_meta_response v1.1 size");
_Static_assert(sizeof(struct ms_energy) == 32, "ms_energy v1.1 size");
_Static_assert(sizeof(struct ms_meta_result) == 32, "ms_meta_result v1 size");
_Static_assert(sizeof(struct ms_stream) == 24, "ms_stream v1 size");
#endif

#ifdef __cplusplus
}
#endif

#endif /* MERGESPLIT_PLUGIN_H */
